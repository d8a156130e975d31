"""Population memory: one columnar store for the episodic memories of many agents of one run.

Each agent owns a row of 2-D column arrays (agent slot x position, positions in write order), so an agent's
memories are an array slice and a batch of agents is a block of rows. A text is embedded once however many
agents remember it (news reach everyone); its vector and keyword matches are shared. Recall for every agent
deciding in a tick is one vectorised run (`memory.population.recall`), scored like `Memory.recall`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psychoagent.embed import Embedder, normalise
from psychoagent.memory.recall.retrieve import query_terms
from psychoagent.text import segment, stem

KINDS = ("episodic", "news", "public", "fill", "outcome", "refusal", "negotiation")
"""`kind_of` codes of the rows (what the event was); 0 is a plain episode."""

SIDES = {"BUY": 1, "SELL": -1}

COLUMNS: dict[str, tuple[Any, Any]] = {"text": (np.int32, -1), "tick": (np.int32, 0), "valence": (np.int8, 0), "arousal": (np.int8, 0),
         "conflict": (np.int8, 0), "kind_of": (np.int8, 0), "invalid": (np.float32, np.nan),
         "access": (np.float32, 0.0), "risky": (np.bool_, False), "actual": (np.float64, np.nan),
         "expected": (np.float64, np.nan), "stake": (np.float64, np.nan), "instrument": (np.int16, -1),
         "side": (np.int8, 0), "signal": (np.int16, -1)}  # fmt: skip
"""Column dtypes and empty values; outcome fields are NaN / -1 on other memories."""


@dataclass
class Recalled:
    """One recalled memory of a population agent: id, text, metadata (outcomes carry their fields), affect."""

    id: str
    """'pop_<agent id>_<position>': the agent and the memory's place in its row."""
    content: str
    """The memory's text."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """tick and kind_of; an outcome also actual, expected, stake, risky, side, instrument and signal."""
    valence: int = 0
    """-2 very negative .. 2 very positive (`Affect.valence`)."""
    arousal: int = 1
    """1 calm .. 3 alarm (`Affect.arousal`)."""
    conflict: int = 0
    """Conflict intensity, 0 none .. 4 fundamental (`Affect.conflict_intensity`)."""


@dataclass
class Batch:
    """Memories to append, one entry per memory: agent id, text, affect, the tick and what kind of event."""

    agents: list[int] = field(default_factory=list)
    """Id of the agent each memory belongs to (one of the store's `agent_ids`)."""
    texts: list[str] = field(default_factory=list)
    """The memory's text (embedded once however many agents store it)."""
    valence: list[int] = field(default_factory=list)
    """`Affect.valence`, -2 .. 2."""
    arousal: list[int] = field(default_factory=list)
    """`Affect.arousal`, 1 .. 3."""
    conflict: list[int] = field(default_factory=list)
    """`Affect.conflict_intensity`, 0 .. 4."""
    kind_of: list[str] = field(default_factory=list)
    """What kind of event, one of `KINDS` (any other is stored as 'episodic')."""
    outcome: list[Mapping[str, Any] | None] = field(default_factory=list)
    """A scored decision's fields (actual, and expected, stake, risky, instrument, side, signal when
    known); None for any other memory."""

    def add(self, agent: int, text: str, valence: int, arousal: int, conflict: int, kind_of: str,
            outcome: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        self.agents.append(agent)
        self.texts.append(text)
        self.valence.append(valence)
        self.arousal.append(arousal)
        self.conflict.append(conflict)
        self.kind_of.append(kind_of)
        self.outcome.append(outcome)

    def __len__(self) -> int:
        return len(self.texts)


def _row_dots(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Dot product of each row with `query`, every row summed the same way whatever the block it is in (a BLAS
    matrix-vector product rounds rows differently by their place in the block, which made a text's similarity
    depend on which texts were embedded alongside it)."""
    return (vectors.astype(np.float32) * query.astype(np.float32)).sum(axis=1)


class TextTable:
    """Unique texts with their unit vectors (float16 to halve memory) and per-query caches of dense similarity
    and keyword matches, extended incrementally as texts arrive."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.dim = int(embedder.dim)
        self.texts: list[str] = []
        self.id_of: dict[str, int] = {}
        self._vectors = np.zeros((1024, self.dim), dtype=np.float16)
        self._tokens: list[frozenset[str]] = []
        self._queries: dict[str, tuple[np.ndarray, list[str], np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors[: len(self.texts)]

    def intern(self, texts: Sequence[str]) -> np.ndarray:
        """Text ids of `texts`, embedding (once, in one batch) those never seen."""
        fresh = [t for t in dict.fromkeys(texts) if t not in self.id_of]
        if fresh:
            start = len(self.texts)
            need = start + len(fresh)
            if need > self._vectors.shape[0]:
                grown = np.zeros((max(need, 2 * self._vectors.shape[0]), self.dim), dtype=np.float16)
                grown[:start] = self._vectors[:start]
                self._vectors = grown
            vecs = normalise(self.embedder.embed_documents(fresh))
            self._vectors[start:need] = vecs
            for offset, text in enumerate(fresh):
                self.id_of[text] = start + offset
                self.texts.append(text)
                self._tokens.append(frozenset(stem(w) for w in segment(text).split()))
        return np.fromiter((self.id_of[t] for t in texts), dtype=np.int32, count=len(texts))

    def query(self, query: str) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
        """(query vector, terms, dense similarity of every text, keyword match matrix texts x terms), cached."""
        cached = self._queries.get(query)
        n = len(self.texts)
        if cached is None:
            qvec = normalise(self.embedder.embed_queries([query]))[0]
            terms = query_terms(query)
            cached = (qvec, terms, np.zeros(0, dtype=np.float32), np.zeros((0, len(terms)), dtype=bool))
        qvec, terms, dense, match = cached
        if len(dense) < n:
            new = _row_dots(self._vectors[len(dense) : n], qvec)
            stems = [stem(t) for t in terms]
            hits = np.array([[s in toks for s in stems] for toks in self._tokens[len(dense) : n]], dtype=bool)
            dense = np.concatenate([dense, new.astype(np.float32)])
            match = np.concatenate([match, hits.reshape(-1, len(terms))])
            cached = (qvec, terms, dense, match)
            if len(self._queries) >= 32 and query not in self._queries:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = cached
        return cached


class PopulationMemory:
    """Episodic memories of a fixed set of agents: columns of shape (agents, capacity), grown by doubling."""

    def __init__(self, agents: Sequence[int], embedder: Embedder, seconds_per_tick: float) -> None:
        self.agent_ids = np.asarray(list(agents), dtype=np.int64)
        self.slot = {int(a): s for s, a in enumerate(self.agent_ids)}
        self.seconds_per_tick = seconds_per_tick
        self.table = TextTable(embedder)
        self.count = np.zeros(len(self.agent_ids), dtype=np.int64)
        self.names: list[str] = []
        """Instrument and signal names of outcome memories (their columns hold indexes into this list)."""
        self._cap = 0
        self.cols: dict[str, np.ndarray] = {}
        self.successor: dict[int, int] = {}
        """Text id of a superseded public memory -> the text id that replaced it."""
        self.own = np.zeros((len(self.agent_ids), 0), dtype=np.int64)
        """Positions of each agent's own memories (`add`, not `broadcast`), in write order; `own_count` per row."""
        self.own_count = np.zeros(len(self.agent_ids), dtype=np.int64)
        self.recent_negative: np.ndarray | None = None
        """Share of negative memories in each agent's last modulated recalls (agents x window, NaN: none yet)."""
        self._grow(64)

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap)
        n = len(self.agent_ids)
        for name, (dtype, empty) in COLUMNS.items():
            col = np.full((n, cap), empty, dtype=dtype)
            if name in self.cols:
                col[:, : self._cap] = self.cols[name]
            self.cols[name] = col
        own = np.zeros((n, cap), dtype=np.int64)
        own[:, : self._cap] = self.own
        self.own = own
        self._cap = cap

    def __len__(self) -> int:
        return int(self.count.sum())

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns and the text vectors (not counting the Python text strings)."""
        return int(sum(c.nbytes for c in self.cols.values()) + self.table._vectors.nbytes)

    def _code(self, names: list[str], value: Any) -> int:
        if value is None:
            return -1
        if value not in names:
            names.append(str(value))
        return names.index(value)

    def add(self, batch: Batch, tick: int) -> tuple[np.ndarray, np.ndarray]:
        """Append a batch (in order within each agent); returns the (slot, position) of every memory."""
        if not len(batch):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        slots = np.fromiter((self.slot[a] for a in batch.agents), dtype=np.int64, count=len(batch))
        order = np.argsort(slots, kind="stable")
        ranked = np.empty(len(slots), dtype=np.int64)
        _, first, counts = np.unique(slots[order], return_index=True, return_counts=True)
        ranked[order] = np.arange(len(slots)) - np.repeat(first, counts)
        pos = self.count[slots] + ranked
        self._grow(int(pos.max()) + 1)
        c = self.cols
        c["text"][slots, pos] = self.table.intern(batch.texts)
        c["tick"][slots, pos] = tick
        c["valence"][slots, pos] = batch.valence
        c["arousal"][slots, pos] = batch.arousal
        c["conflict"][slots, pos] = batch.conflict
        c["kind_of"][slots, pos] = [KINDS.index(k) if k in KINDS else 0 for k in batch.kind_of]
        for j, meta in enumerate(batch.outcome):
            if meta is None:
                continue
            s, p = slots[j], pos[j]
            c["actual"][s, p] = meta["actual"]
            c["expected"][s, p] = meta.get("expected", np.nan)
            c["stake"][s, p] = meta.get("stake", np.nan)
            c["risky"][s, p] = bool(meta.get("risky"))
            c["instrument"][s, p] = self._code(self.names, meta.get("instrument"))
            c["side"][s, p] = SIDES.get(str(meta.get("side")), 0)
            c["signal"][s, p] = self._code(self.names, meta.get("signal"))
        np.add.at(self.count, slots, 1)
        self.own[slots, self.own_count[slots] + ranked] = pos
        np.add.at(self.own_count, slots, 1)
        return slots, pos

    def broadcast(
        self, text: str, valence: int, arousal: int, conflict: int, kind_of: str, tick: int
    ) -> None:
        """The same memory for every agent (a public event), appended in one vectorised write."""
        slots = np.arange(len(self.agent_ids))
        pos = self.count.copy()
        self._grow(int(pos.max()) + 1)
        c = self.cols
        c["text"][slots, pos] = self.table.intern([text])[0]
        c["tick"][slots, pos] = tick
        c["valence"][slots, pos] = valence
        c["arousal"][slots, pos] = arousal
        c["conflict"][slots, pos] = conflict
        c["kind_of"][slots, pos] = KINDS.index(kind_of) if kind_of in KINDS else 0
        self.count += 1

    def forget_agent(self, agent: int) -> None:
        """Agent `agent` starts again with no memories: its row is emptied (a newcomer in its place)."""
        s = self.slot[int(agent)]
        for name, (_, empty) in COLUMNS.items():
            self.cols[name][s] = empty
        self.count[s] = 0
        self.own_count[s] = 0
        if self.recent_negative is not None:
            self.recent_negative[s] = np.nan

    def supersede(self, old_text: str, new_text: str, tick: int) -> int:
        """Every agent's copy of a public memory becomes invalid from `tick` (replaced by `new_text`)."""
        old, new = self.table.id_of.get(old_text), self.table.id_of.get(new_text)
        if old is None or new is None:
            return 0
        hit = (self.cols["text"] == old) & np.isnan(self.cols["invalid"])
        self.cols["invalid"][hit] = tick
        self.successor[old] = new
        return int(hit.sum())

    def recalled(self, slot: int, pos: int) -> Recalled:
        """The memory at (slot, position) as a `Recalled` (outcome metadata rebuilt from the columns)."""
        return self.recalled_many(np.array([slot]), np.array([pos]))[0]

    def recalled_many(self, slots: np.ndarray, positions: np.ndarray) -> list[Recalled]:
        """`recalled` for many (slot, position) pairs, each column read once for all of them."""
        row = {name: col[slots, positions].tolist() for name, col in self.cols.items()}
        agents = self.agent_ids[slots].tolist()
        out = []
        for j, pos in enumerate(positions.tolist()):
            meta: dict[str, Any] = {"tick": row["tick"][j], "kind_of": KINDS[row["kind_of"][j]]}
            actual = row["actual"][j]
            if actual == actual:  # not NaN: an outcome memory
                inst, sig = row["instrument"][j], row["signal"][j]
                meta.update(actual=actual, expected=row["expected"][j], stake=row["stake"][j],
                            risky=bool(row["risky"][j]), side="BUY" if row["side"][j] > 0 else "SELL",
                            instrument=self.names[inst] if inst >= 0 else "",
                            signal=self.names[sig] if sig >= 0 else "")  # fmt: skip
            out.append(Recalled(id=f"pop_{agents[j]}_{pos}", content=self.table.texts[row["text"][j]], metadata=meta,
                                valence=row["valence"][j], arousal=row["arousal"][j], conflict=row["conflict"][j]))  # fmt: skip
        return out
