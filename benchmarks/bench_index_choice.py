"""Which approximate index serves dense recall: faiss IVF (the default) against HNSW in hnswlib and usearch.

Run from the repository root: ``python -m benchmarks.bench_index_choice [--units 200000]``. hnswlib and usearch
are not dependencies of the project; a library that is not installed is skipped. Every index is built and searched
on one thread over the same hash-embedded bench sentences, asked for the 100 rows recall asks for; recall@10 is
the share of the exact top 10 among the best 10 of those rows by exact cosine, as recall sees them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from benchmarks._report import publish
from benchmarks.bench_memory import queries, sentences
from psychoagent.embed import HashingEmbedder
from psychoagent.memory.config import RecallConfig
from psychoagent.memory.index.ann import IvfIndex, dense_top

ASKED = 100
"""Rows recall asks the dense search for (`RecallConfig.candidates`)."""


class _Held:
    """The two attributes `dense_top` reads of a namespace index."""

    def __init__(self, vectors: np.ndarray, ann: IvfIndex) -> None:
        self.vectors, self.ann = vectors, ann

    def __len__(self) -> int:
        return len(self.vectors)


def _row(name: str, build_s: float, search: Callable[[np.ndarray], np.ndarray], vectors: np.ndarray,
         qs: np.ndarray, exact: list[set[int]], memory: str) -> str:  # fmt: skip
    shares, times = [], []
    for q, best_exact in zip(qs, exact, strict=True):
        start = time.perf_counter()
        found = search(q)
        times.append(time.perf_counter() - start)
        found = found[found >= 0]
        best = found[np.argsort(-(vectors[found] @ q))[:10]]
        shares.append(len(best_exact & set(best.tolist())) / 10)
    return (f"| {name} | {build_s:.1f} | {np.median(times) * 1000:.2f} / {np.percentile(times, 95) * 1000:.2f} | "
            f"{np.mean(shares):.3f} | {memory} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--units", type=int, default=200_000)
    parser.add_argument(
        "--no-write", action="store_true", help="print only; docs/benchmarks.md is not written"
    )
    args = parser.parse_args()
    embedder = HashingEmbedder(384)
    vectors = np.ascontiguousarray(embedder.embed_documents(sentences(args.units, seed=3)), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    qs = embedder.embed_queries(queries(200))
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    exact = [set(np.argsort(-(vectors @ q))[:10].tolist()) for q in qs]
    lines = [f"{args.units:,} hash-embedded bench sentences (384-d), 200 queries, one thread.", "",
             "| index | build s | search p50 / p95 ms | recall@10 vs exact | index memory |", "|---|---:|---|---:|---|"]  # fmt: skip
    cfg = RecallConfig()
    start = time.perf_counter()
    ivf = IvfIndex(vectors, cfg)
    held = _Held(vectors, ivf)
    lines.append(_row(f"faiss IVF pq2, {ivf.lists} lists (default)", time.perf_counter() - start,
                      lambda q: dense_top(held, q, None, ASKED, cfg), vectors, qs, exact,
                      f"{args.units * 384 // 4 / 2**20:.0f} MiB codes + the float32 matrix"))  # fmt: skip
    try:
        import hnswlib

        graph = hnswlib.Index(space="ip", dim=384)
        graph.init_index(max_elements=args.units, M=16, ef_construction=100)
        graph.set_num_threads(1)
        start = time.perf_counter()
        graph.add_items(vectors, np.arange(args.units))
        built = time.perf_counter() - start
        for ef in (100, 200):
            graph.set_ef(ef)
            lines.append(_row(f"hnswlib M=16, ef {ef}", built,
                              lambda q: graph.knn_query(q, k=ASKED)[0][0].astype(np.int64), vectors, qs, exact,
                              "float32 copy + graph"))  # fmt: skip
    except ImportError:
        lines.append("| hnswlib | not installed | | | |")
    try:
        from usearch.index import Index

        quantised = Index(ndim=384, metric="ip", dtype="i8", connectivity=16, expansion_add=128)
        start = time.perf_counter()
        quantised.add(np.arange(args.units), vectors, threads=1)
        built = time.perf_counter() - start
        for ef in (100, 200):
            quantised.expansion_search = ef
            lines.append(_row(f"usearch int8, M=16, ef {ef}", built,
                              lambda q: np.asarray(quantised.search(q, ASKED, threads=1).keys, dtype=np.int64),
                              vectors, qs, exact, f"{quantised.memory_usage / 2**20:.0f} MiB"))  # fmt: skip
    except ImportError:
        lines.append("| usearch | not installed | | | |")
    publish(
        "bench_index_choice",
        "Dense index: faiss IVF against HNSW",
        lines,
        write=not args.no_write,
        after="bench_million",
    )


if __name__ == "__main__":
    main()
