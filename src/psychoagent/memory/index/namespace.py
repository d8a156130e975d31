"""In-memory columnar index of one namespace: a float32 vector matrix plus the columns filters and scores need.

Exact cosine top-k is a matrix-vector product over unit vectors (3.4 ms at 100k x 384 on a quiet machine here,
FACTS.md); large namespaces add a faiss IVF index (`ann`). Per-row conversation facts (speaker, times) live
in `conversation`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from psychoagent.memory.contracts import TOMBSTONE_KIND, NamespaceRows
from psychoagent.memory.filters import (
    NUMERIC_FIELDS,
    TEXT_FIELDS,
    TIME_FIELDS,
    Condition,
    FilterError,
    compare,
)
from psychoagent.memory.index.ann import IvfIndex, float32_blocks
from psychoagent.memory.index.conversation import ConversationIndex, session_ids
from psychoagent.memory.index.keyword import KeywordIndex
from psychoagent.memory.index.packing import (
    LABEL_KEYS,
    pack_labels,
    pack_strings,
    unpack_labels,
    unpack_strings,
)
from psychoagent.types import MemoryUnit, to_epoch

FLOAT_COLUMNS = (*NUMERIC_FIELDS, *TIME_FIELDS)
RELOAD_DEAD_SHARE = 0.25
"""A namespace index whose forgotten (blanked) rows pass this share of its rows is dropped and reloaded without
them; each reload costs about one row's load per live unit (10 ms for 250 units here), so under steady forgetting
the index stays within a third above its live size while a forget costs no reload."""
RELOAD_DEAD_MIN = 64
"""...and at least this many rows, so small namespaces do not reload every few forgets."""


class NamespaceIndex:
    """Vectors and filter columns of one namespace; rows are appended in insertion order and never reordered."""

    def __init__(self, dim: int, dtype: str = "float32") -> None:
        self.dim = dim
        self.dtype = np.dtype(dtype)
        """How the vectors are held (`RecallConfig.vector_dtype`); arithmetic reads them as float32."""
        self._n = 0
        self._vectors = np.zeros((64, dim), dtype=self.dtype)
        self._context: np.ndarray | None = None  # window vectors of dialogue turns (`set_context`), else None
        self.last: tuple[str, float | None] | None = None  # content and created_at of the newest row
        self._float = {name: np.full(64, np.nan, dtype=np.float64) for name in FLOAT_COLUMNS}
        self._text = {name: np.empty(64, dtype=object) for name in TEXT_FIELDS}
        self.pks = np.zeros(64, dtype=np.int64)
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self._sorted_pks: np.ndarray | None = None  # pks in order, for `known_pks` (reset by appends)
        self._keywords = KeywordIndex()
        self._conversation = ConversationIndex()
        self._pending: list[tuple[range, Sequence[Sequence[str]], list[str], list[float | None]]] = []
        self._pending_lock = threading.Lock()
        self._sessions: tuple[int, float, np.ndarray] | None = None
        self.ann: IvfIndex | None = None
        self.dead = 0  # rows blanked by `forget` since the load

    def __len__(self) -> int:
        return self._n

    @property
    def keywords(self) -> KeywordIndex:
        """BM25 postings of every row (rows appended since the last read are indexed now)."""
        if self._pending:
            self._index_pending()
        return self._keywords

    @property
    def conversation(self) -> ConversationIndex:
        """Speaker and time facts of every row (rows appended since the last read are parsed now)."""
        if self._pending:
            self._index_pending()
        return self._conversation

    def _index_pending(self) -> None:
        """Keyword postings and conversation facts of the appended batches, all at once: writes never wait for
        them, and postings of many batches are grouped in one pass. Under a lock, and the batches leave the queue
        only once indexed, so concurrent readers never see (or build) a half-built index."""
        with self._pending_lock:
            pending = self._pending[:]
            if not pending:
                return
            rows = [row for batch in pending for row in batch[0]]
            self._keywords.add(rows, [toks for batch in pending for toks in batch[1]])
            self._conversation.add(
                [text for batch in pending for text in batch[2]], [t for batch in pending for t in batch[3]]
            )
            del self._pending[: len(pending)]

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors[: self._n]

    @property
    def search_vectors(self) -> np.ndarray:
        """What dense recall searches: each turn's window vector where one is set (`index.context`), else the
        unit's own vector; the same array as `vectors` in a namespace without any."""
        return self.vectors if self._context is None else self._context[: self._n]

    def vector_rows(self, rows: np.ndarray | int) -> np.ndarray:
        """The vectors of some rows as float32 (a copy when they are held as float16)."""
        return self.vectors[rows].astype(np.float32, copy=False)

    def similarities(self, vectors: np.ndarray) -> np.ndarray:
        """Every row's vector against each of these float32 vectors (rows x vectors), float16 rows converted a
        block at a time (the whole matrix at once would double it for the product)."""
        held = self.vectors
        if held.dtype == np.float32:
            return np.asarray(held @ vectors.T)
        parts = [block @ vectors.T for block in float32_blocks(held)]
        return np.concatenate(parts) if parts else np.zeros((0, len(vectors)), np.float32)

    @property
    def windowed(self) -> bool:
        """Whether dense recall searches turn-window vectors here (`set_context`) rather than the own vectors."""
        return self._context is not None

    def set_context(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Search these rows by these (window) vectors; the first call copies the own vectors for the other rows
        and drops the IVF index, which is rebuilt over the search vectors."""
        if len(rows) == 0:
            return
        if self._context is None:
            self._context = self._vectors.copy()
            self.ann = None
        self._context[rows] = vectors

    def column(self, name: str) -> np.ndarray:
        if name in self._float:
            return self._float[name][: self._n]
        if name in self._text:
            return self._text[name][: self._n]
        raise FilterError(f"no column {name!r} in the index")

    def _grow(self, need: int) -> None:
        cap = self._vectors.shape[0]
        if need <= cap:
            return
        new_cap = max(need, cap * 2)
        vectors = np.zeros((new_cap, self.dim), dtype=self.dtype)
        vectors[: self._n] = self._vectors[: self._n]
        self._vectors = vectors
        if self._context is not None:
            context = np.zeros((new_cap, self.dim), dtype=self.dtype)
            context[: self._n] = self._context[: self._n]
            self._context = context
        for name, col in self._float.items():
            grown = np.full(new_cap, np.nan, dtype=np.float64)
            grown[: self._n] = col[: self._n]
            self._float[name] = grown
        for name, col in self._text.items():
            grown_obj = np.empty(new_cap, dtype=object)
            grown_obj[: self._n] = col[: self._n]
            self._text[name] = grown_obj
        pks = np.zeros(new_cap, dtype=np.int64)
        pks[: self._n] = self.pks[: self._n]
        self.pks = pks

    def append(
        self,
        pks: Sequence[int],
        units: Sequence[MemoryUnit],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
    ) -> None:
        """Add freshly stored units (same order as `vectors`) with their keyword tokens."""
        start = self._n
        self._grow(start + len(units))
        end = start + len(units)
        self._vectors[start:end] = vectors
        if self._context is not None:
            self._context[start:end] = vectors
        ids = [u.id for u in units]
        if len(pks) != len(units):
            raise ValueError("one pk per unit")
        self.pks[start:end] = pks
        self.ids.extend(ids)
        rows = range(start, end)
        self.row_of.update(zip(ids, rows, strict=True))
        self._sorted_pks = None
        table = np.array([self._values(u) for u in units], dtype=np.float64).reshape(
            len(units), len(FLOAT_COLUMNS)
        )
        for col, name in enumerate(FLOAT_COLUMNS):
            self._float[name][start:end] = table[:, col]
        self._text["tier"][start:end] = [u.tier for u in units]
        self._text["kind"][start:end] = [u.kind for u in units]
        with self._pending_lock:
            self._pending.append((rows, tokens, [u.content for u in units], table[:, 4].tolist()))
        self._n = end
        if units:
            self.last = (units[-1].content, to_epoch(units[-1].created_at))

    def known_pks(self, pks: Sequence[int]) -> np.ndarray:
        """Whether each store pk has a row here (a sorted copy of the pks, kept until the next append, where a
        dict of a million of them took about 100 MB)."""
        if self._sorted_pks is None:
            self._sorted_pks = np.sort(self.pks[: self._n])
        ordered, wanted = self._sorted_pks, np.asarray(pks, dtype=np.int64)
        if len(ordered) == 0:
            return np.zeros(len(wanted), dtype=bool)
        at = np.minimum(np.searchsorted(ordered, wanted), len(ordered) - 1)
        return np.asarray(ordered[at] == wanted, dtype=bool)

    def forget(self, unit_id: str) -> bool:
        """Blank a forgotten unit's row in place: a zero vector, kind `forgotten` (recall skips it), no keyword
        postings or conversation facts. False when the row cannot be blanked alone (its text is also inside other
        rows' turn-window vectors): the caller drops the index and reloads it."""
        row = self.row_of.get(unit_id)
        if row is None:
            return True
        if self._context is not None:
            return False
        if self._pending:
            self._index_pending()
        self._vectors[row] = 0.0
        self._text["kind"][row] = TOMBSTONE_KIND
        self._keywords.remove(row)
        self._conversation.remove(row)
        if self.ids and self.ids[-1] == unit_id:
            self.last = None
        if self.ann is not None:  # its IVF codes hold the vector
            self.ann.remove(row)
        self.dead += 1
        return True

    def reload_due(self) -> bool:
        """Whether enough rows are blanked that a reload without them pays (`RELOAD_DEAD_SHARE`)."""
        return self.dead >= max(RELOAD_DEAD_MIN, RELOAD_DEAD_SHARE * self._n)

    @staticmethod
    def _values(unit: MemoryUnit) -> tuple[float | None, ...]:
        """A unit's float columns in `FLOAT_COLUMNS` order (None where unset)."""
        return (
            unit.affect.valence, unit.affect.arousal, unit.affect.conflict_intensity, unit.access_count,
            to_epoch(unit.created_at), to_epoch(unit.valid_at), to_epoch(unit.invalid_at),
            to_epoch(unit.last_accessed_at),
        )  # fmt: skip

    def _set_row(self, row: int, unit: MemoryUnit) -> None:
        for name, value in zip(FLOAT_COLUMNS, self._values(unit), strict=True):
            self._float[name][row] = np.nan if value is None else value
        self._text["tier"][row] = unit.tier
        self._text["kind"][row] = unit.kind

    def update(self, unit: MemoryUnit) -> None:
        """Refresh the columns of a unit whose affect, tier, validity or access changed."""
        row = self.row_of.get(unit.id)
        if row is not None:
            self._set_row(row, unit)

    def touch(self, rows: np.ndarray, when: float) -> None:
        """Count one access for each row."""
        self._float["access_count"][rows] += 1
        self._float["last_accessed_at"][rows] = when

    @classmethod
    def from_rows(
        cls, rows: NamespaceRows, vectors: np.ndarray, dim: int, dtype: str = "float32"
    ) -> NamespaceIndex:
        """Build from a store load (vectors already complete and normalised)."""
        index = cls(dim, dtype)
        n = len(rows.ids)
        index._grow(n)
        index._vectors[:n] = vectors
        for name in FLOAT_COLUMNS:
            index._float[name][:n] = rows.columns[name]
        for name in TEXT_FIELDS:
            index._text[name][:n] = rows.columns[name]
        index.pks[:n] = rows.pks
        index.ids = list(rows.ids)
        index.row_of = {uid: i for i, uid in enumerate(rows.ids)}
        index.keywords.add(range(n), [text.split() for text in rows.segmented])
        index.conversation.add(rows.contents, [float(t) for t in rows.columns["created_at"]])
        index._n = n
        if n:
            index.last = (rows.contents[-1], float(rows.columns["created_at"][-1]))
        return index

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Everything this index holds as flat arrays, keyed for one .npz file (`from_arrays`; a snapshot)."""
        n = self._n
        keywords, conversation = self.keywords, self.conversation  # pending rows indexed first
        ids, id_offsets = pack_strings(self.ids)
        out = {"vectors": self.vectors, "pks": self.pks[:n], "ids": ids, "id_offsets": id_offsets,
               "dead": np.asarray([self.dead], dtype=np.int64)}  # fmt: skip
        if self._context is not None:
            out["context"] = self._context[:n]
        if self.last is not None:
            out["last"], out["last_offsets"] = pack_strings([self.last[0]])
            out["last_at"] = np.asarray([np.nan if self.last[1] is None else self.last[1]])
        for name in FLOAT_COLUMNS:
            out[f"float.{name}"] = self._float[name][:n]
        for name in TEXT_FIELDS:
            out.update({f"text.{name}.{k}": v for k, v in pack_labels(list(self._text[name][:n])).items()})
        out.update({f"kw.{k}": v for k, v in keywords.to_arrays().items()})
        out.update({f"conv.{k}": v for k, v in conversation.to_arrays().items()})
        if self.ann is not None:
            out.update({f"ann.{k}": v for k, v in self.ann.to_arrays().items()})
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> NamespaceIndex:
        """The index `to_arrays` flattened (IVF index included when it had one)."""
        vectors = arrays["vectors"]  # the arrays become the columns (capacity n: the next append grows them)
        n, dim = vectors.shape
        dtype = "float16" if vectors.dtype == np.float16 else "float32"
        index = cls(dim, dtype)
        index._vectors = np.require(vectors, dtype, ["C", "W"])
        if "context" in arrays:
            index._context = np.require(arrays["context"], dtype, ["C", "W"])
        for name in FLOAT_COLUMNS:
            index._float[name] = np.require(arrays[f"float.{name}"], np.float64, ["W"])
        for name in TEXT_FIELDS:
            index._text[name] = unpack_labels(*(arrays[f"text.{name}.{k}"] for k in LABEL_KEYS))
        index.pks = np.require(arrays["pks"], np.int64, ["W"])
        index.ids = unpack_strings(arrays["ids"], arrays["id_offsets"])
        index.row_of = dict(zip(index.ids, range(n), strict=True))
        index._keywords = KeywordIndex.from_arrays(_prefixed(arrays, "kw."))
        index._conversation = ConversationIndex.from_arrays(_prefixed(arrays, "conv."))
        index._n = n
        index.dead = int(arrays["dead"][0])
        if "last" in arrays:
            at = float(arrays["last_at"][0])
            index.last = (
                unpack_strings(arrays["last"], arrays["last_offsets"])[0],
                None if np.isnan(at) else at,
            )
        if "ann.index" in arrays:
            index.ann = IvfIndex.from_arrays(_prefixed(arrays, "ann."))
        return index

    def sessions(self, gap_seconds: float) -> np.ndarray:
        """Session number of every row (time gaps above `gap_seconds` separate sessions), cached per size."""
        if self._sessions is None or self._sessions[:2] != (self._n, gap_seconds):
            self._sessions = (self._n, gap_seconds, session_ids(self.column("created_at"), gap_seconds))
        return self._sessions[2]

    def mask(
        self, conditions: Sequence[Condition], metadata_pks: set[int] | None = None
    ) -> np.ndarray | None:
        """Boolean row mask for the filter conditions (None = no filter). Metadata conditions arrive as pk sets."""
        if not conditions and metadata_pks is None:
            return None
        mask = np.ones(self._n, dtype=bool)
        for cond in conditions:
            if cond.field.startswith("metadata."):
                continue
            if cond.field == "current":
                current = np.isnan(self.column("invalid_at"))
                mask &= current if cond.value else ~current
                continue
            col = self.column(cond.field)
            if cond.op == "in":
                mask &= np.isin(col, np.asarray(cond.value, dtype=col.dtype))
            elif cond.value is None:
                is_null = np.isnan(col) if col.dtype.kind == "f" else col == None  # noqa: E711
                mask &= is_null if cond.op == "==" else ~is_null
            else:
                with np.errstate(invalid="ignore"):
                    mask &= np.asarray(compare(col, cond.op, cond.value), dtype=bool)
        if metadata_pks is not None:
            mask &= np.isin(
                self.pks[: self._n], np.fromiter(metadata_pks, dtype=np.int64, count=len(metadata_pks))
            )
        return mask

    def valid_mask(self, when: float) -> np.ndarray:
        """Rows observed by `when` whose fact held then: valid_at (or created_at) <= when < invalid_at."""
        start = self.column("valid_at")
        start = np.where(np.isnan(start), self.column("created_at"), start)
        end = self.column("invalid_at")
        with np.errstate(invalid="ignore"):
            return (self.column("created_at") <= when) & (start <= when) & (np.isnan(end) | (end > when))


def _prefixed(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The arrays under a key prefix, the prefix dropped."""
    return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
