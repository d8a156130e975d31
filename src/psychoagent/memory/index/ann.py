"""Dense top-n search: an exact numpy scan, or a faiss inverted-file index for large namespaces (extra ``ann``).

The exact scan reads every vector (100k x 384 float32 is 150 MB per query); above `RecallConfig.ann_min_rows` an
IVF index (Jégou et al. 2011, faiss) scans only the `ann_probes` clusters nearest to the query, by default over
4-bit fast-scan product codes of each pair of dimensions (André et al. 2015), whose best `ann_rerank` x n rows are
re-scored exactly (or over 8-bit scalar-quantised codes, or float32). Its recall@10 against the exact scan is
reported in docs/benchmarks.md. Rows added after the index was trained are assigned to the existing clusters on the
next search; filtered recall (a row mask) always scans exactly.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, cast

import numpy as np

from psychoagent.memory.config import RecallConfig

log = logging.getLogger(__name__)

TRAIN_POINTS_PER_LIST = 40
"""k-means sample size per cluster (faiss warns below 39)."""
PROBES = {"pq2": 48, "pq4": 32, "int8": 32, "float32": 32}
"""Fewest clusters scanned per query when `RecallConfig.ann_probes` is None. At 100k bench units (316 clusters)
pq2 with 48 probes found recall@10 0.928 (40: 0.912), int8 with 32 probes 0.910 (docs/benchmarks.md)."""
PROBE_SHARE = {"pq2": 0.18}
"""...and at least this share of the clusters: with sqrt(n) clusters a fixed number scans an ever smaller share
of the rows, and on the bench's hash vectors (little cluster structure) recall@10 fell to 0.861 at a million
units with 48 of 1,000. There 150 probes found 0.951 and 180 found 0.956 with 8 rows re-scored per row asked (3.3
ms a search against 1.4 ms, docs/benchmarks.md)."""
RERANK = {"pq2": 8, "pq4": 2, "int8": 1, "float32": 1}
"""Rows fetched per row asked, re-scored by exact cosine, when `RecallConfig.ann_rerank` is None. 4-bit codes
need it (pq2 at 100k bench units, 48 probes: recall@10 0.928 with 5, 0.938 with 8 at 0.1 ms more; at a million
units with 180 probes 0.956 with 8, 0.958 with 12; pq4 on clustered
32-d test data: 0.73 without); 8-bit codes do not: at 100k bench units the index's own best rows gave recall@10
0.910 as the re-scored twice as many did, while fetching and re-scoring them cost about 0.15 ms a query. On the
conflict scenarios' e5 vectors (11,786, 400 of them as queries, recall's 100 rows asked) pq2 found 1.000 and int8
0.998 (docs/benchmarks.md)."""
PQ2_DIMS = 2
"""Dimensions per 4-bit code of the pq2 codec (pq4's one code per dimension, over residuals, took about 50 s to
train at 100k; 4 dimensions per code lost recall, 0.85-0.88: docs/benchmarks.md)."""
ADD_ROWS = 65_536
"""Rows converted to float32 at a time for faiss or an exact scan (float16 vectors: `RecallConfig.vector_dtype`)."""
PQ2_MIN_DIM = 256
"""Narrower vectors take 8-bit codes instead of pq2: on 32-d clustered test data its 16 codes needed 20 rows
re-scored per row asked for recall@10 0.96 (384-d bench and e5 vectors: 5 for 0.93 and 1.00)."""


@lru_cache(maxsize=1)
def _faiss() -> Any:
    try:
        import faiss
    except ImportError:
        log.info("faiss is not installed (pip install 'psychoagent[ann]'): dense recall scans exactly")
        return None
    return faiss


@contextmanager
def _one_thread(faiss: Any) -> Iterator[None]:
    """Run faiss on one OpenMP thread. Training the pq2 codes at 100k units on 2 busy cores took 38-44 s with
    faiss's default threads (they spin waiting for each other) against 1.6 s with one; int8 0.8-0.9 against 0.55 s."""
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


class IvfIndex:
    """A trained faiss IVF index (IndexIVFPQFastScan with 4-bit codes, IndexIVFScalarQuantizer with 8-bit codes
    or IndexIVFFlat; vectors pq2 or pq4 cannot split, or narrower than `PQ2_MIN_DIM` for pq2, take 8-bit codes)
    over the first `len(self)` rows of a namespace's vector matrix."""

    def __init__(self, vectors: np.ndarray, cfg: RecallConfig) -> None:
        faiss = _faiss()
        n, dim = vectors.shape
        lists = max(1, int(math.sqrt(n) * cfg.ann_lists_per_sqrt))
        self.codec = cfg.ann_codec
        self.codes = self.codec
        """The codes actually stored (a dimension a codec cannot split takes int8)."""
        self._quantiser = faiss.IndexFlatIP(dim)
        if self.codec == "pq2" and dim % (2 * PQ2_DIMS) == 0 and dim >= PQ2_MIN_DIM:
            # a 4-bit code per pair of dimensions, of the vectors themselves (not of their residuals to the cluster
            # centre: training takes seconds), scanned with SIMD lookup tables; recall re-scores the best exactly
            self._index = faiss.IndexIVFPQFastScan(
                self._quantiser, dim, lists, dim // PQ2_DIMS, 4, faiss.METRIC_INNER_PRODUCT
            )
            self._index.by_residual = False
        elif self.codec == "pq4" and dim % 2 == 0:
            # a 4-bit code per dimension (2 per dimension lost too much on 32-d clustered data), scanned with SIMD
            # lookup tables (faiss "fast scan")
            self._index = faiss.IndexIVFPQFastScan(
                self._quantiser, dim, lists, dim, 4, faiss.METRIC_INNER_PRODUCT
            )
        elif self.codec in ("pq2", "pq4", "int8"):
            self.codes = "int8"
            # one 8-bit range for all dimensions, codes of the vectors themselves (not of their residuals to the
            # cluster centre): at 100k units the same recall@10 as per-dimension ranges over residuals (0.910), the
            # scan about 20 % and the training about 60 % faster (docs/benchmarks.md)
            self._index = faiss.IndexIVFScalarQuantizer(
                self._quantiser,
                dim,
                lists,
                faiss.ScalarQuantizer.QT_8bit_uniform,
                faiss.METRIC_INNER_PRODUCT,
                False,
            )
        else:
            self._index = faiss.IndexIVFFlat(self._quantiser, dim, lists, faiss.METRIC_INNER_PRODUCT)
        sample = min(n, lists * TRAIN_POINTS_PER_LIST)
        picks = np.sort(np.random.default_rng(0).choice(n, size=sample, replace=False))
        self._rows = 0
        """Rows of the matrix the index has taken in (removed rows included); a row's faiss id is its number."""
        with _one_thread(faiss):
            self._index.train(np.ascontiguousarray(vectors[picks], dtype=np.float32))
        self.extend(vectors)
        self._index.nprobe = probes_for(cfg, self.codes, lists)

    def __len__(self) -> int:
        return self._rows

    @property
    def probes(self) -> int:
        """Clusters the last search scanned (the recall setting, `probes_for`)."""
        return int(self._index.nprobe)

    @property
    def lists(self) -> int:
        """Clusters (inverted lists) of the index."""
        return int(self._index.nlist)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The trained index as faiss serialises it, with its codec and row count (an index snapshot)."""
        with _one_thread(_faiss()):
            data = _faiss().serialize_index(self._index)
        return {"index": np.asarray(data, dtype=np.uint8), "rows": np.asarray([self._rows], dtype=np.int64),
                "codec": np.frombuffer(f"{self.codec}/{self.codes}".encode(), dtype=np.uint8)}  # fmt: skip

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> IvfIndex:
        """The index `to_arrays` gave, without training or adding again."""
        faiss = _faiss()
        index = cls.__new__(cls)
        codec, codes = arrays["codec"].tobytes().decode().split("/")
        index.codec, index.codes = cast(Any, codec), cast(Any, codes)
        with _one_thread(faiss):
            index._index = faiss.deserialize_index(np.ascontiguousarray(arrays["index"]))
        index._quantiser = None  # the deserialised index owns its own
        index._rows = int(arrays["rows"][0])
        return index

    def extend(self, vectors: np.ndarray) -> None:
        """Add rows appended to the matrix since the last call (same order)."""
        with _one_thread(_faiss()):
            for block in float32_blocks(vectors):
                ids = np.arange(self._rows, self._rows + len(block), dtype=np.int64)
                self._index.add_with_ids(block, ids)
                self._rows += len(block)

    def remove(self, row: int) -> None:
        """Drop one row's codes (a forgotten unit): a scan of the inverted lists, well under a millisecond at 20k
        rows, where training the index again took half a second (docs/benchmarks.md)."""
        if row < self._rows:
            faiss = _faiss()
            with _one_thread(faiss):
                self._index.remove_ids(faiss.IDSelectorBatch(np.array([row], dtype=np.int64)))

    def search(self, query: np.ndarray, n: int, probes: int) -> np.ndarray:
        """Rows of the (approximately) n most similar vectors, by the index's own (possibly quantised) scores."""
        self._index.nprobe = probes
        # one query is too small to split across threads: on a busy machine the second thread only adds waiting
        # (measured at 100k units on 2 busy cores: p95 5.2 ms with faiss's default threads, 4.0 ms with one)
        with _one_thread(_faiss()):
            _, found = self._index.search(np.ascontiguousarray(query[None, :], dtype=np.float32), n)
        rows = found[0]
        return rows[rows >= 0].astype(np.int64)


def float32_blocks(matrix: np.ndarray) -> Iterator[np.ndarray]:
    """The rows of a matrix as contiguous float32 blocks of `ADD_ROWS` (float16 vectors converted a block at a
    time, never the whole matrix at once; float32 rows are not copied)."""
    for start in range(0, len(matrix), ADD_ROWS):
        yield np.ascontiguousarray(matrix[start : start + ADD_ROWS], dtype=np.float32)


def probes_for(cfg: RecallConfig, codec: str, lists: int = 0) -> int:
    """Clusters to scan of `lists`: the configured number, else the codec's own (`PROBES`, `PROBE_SHARE`)."""
    if cfg.ann_probes is not None:
        return cfg.ann_probes
    return max(PROBES.get(codec, 32), math.ceil(PROBE_SHARE.get(codec, 0.0) * lists))


def searched(index: Any) -> np.ndarray:
    """The matrix dense recall searches: the index's search vectors (turn windows, `NamespaceIndex.search_vectors`)
    where it has them, else its vectors."""
    matrix: np.ndarray = index.search_vectors if hasattr(index, "search_vectors") else index.vectors
    return matrix


def ann_for(index: Any, cfg: RecallConfig) -> IvfIndex | None:
    """The namespace's IVF index, built on first need and extended with new rows; None when exact is used."""
    n = len(index)
    if cfg.ann != "ivf" or n < cfg.ann_min_rows or _faiss() is None:
        return None
    ann: IvfIndex | None = getattr(index, "ann", None)
    if ann is None or ann.codec != cfg.ann_codec:
        ann = IvfIndex(searched(index), cfg)
        index.ann = ann
    elif len(ann) < n:
        ann.extend(searched(index)[len(ann) :])
    return ann


def dense_top(
    index: Any, query: np.ndarray, mask: np.ndarray | None, n: int, cfg: RecallConfig
) -> np.ndarray:
    """Rows of the n most similar units (within the mask): IVF for large unfiltered namespaces, else exact."""
    ann = ann_for(index, cfg) if mask is None else None
    if ann is not None:
        rerank = cfg.ann_rerank if cfg.ann_rerank is not None else RERANK.get(ann.codes, 1)
        probes = probes_for(cfg, ann.codes, ann.lists)
        if ann.codes == "float32" or rerank == 1:
            return ann.search(query, n, probes)
        # quantised scores are approximate: fetch more and keep the best by exact cosine
        found = ann.search(query, n * rerank, probes)
        if len(found) <= n:
            return found
        matrix = searched(index)
        sims = matrix[found].astype(np.float32, copy=False) @ query.astype(np.float32)
        return found[np.argpartition(-sims, n - 1)[:n]]
    # einsum runs on one core without BLAS threads: on a busy 2-core machine the threaded matrix-vector product
    # waited on its second thread (10k rows: p95 8 ms vs 0.5 ms here), and below ann_min_rows one core suffices
    matrix = searched(index)
    if matrix.dtype == np.float32:
        sims = np.einsum("ij,j->i", matrix, query.astype(np.float32), optimize=False)
    else:  # float16 rows: numpy has no fast float16 product
        q32 = query.astype(np.float32)
        parts = [np.einsum("ij,j->i", block, q32, optimize=False) for block in float32_blocks(matrix)]
        sims = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    allowed = np.flatnonzero(mask) if mask is not None else None
    pool = sims if allowed is None else sims[allowed]
    take = min(n, len(pool))
    if take == 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-pool, take - 1)[:take] if take < len(pool) else np.arange(len(pool))
    return top if allowed is None else allowed[top]
