"""The protocols and data types memory works with: the store every backend implements, the pair judge, and the
value types, embedder and appraiser it shares with the rest of the package (defined in their own homes).

Every room of memory imports its contracts from here; this module imports no room of memory but the filters whose
`Condition` a store's metadata filter takes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from psychoagent.affect.contracts import Appraiser
from psychoagent.embed.contracts import Embedder
from psychoagent.memory.filters import Condition
from psychoagent.types import Briefing, ConflictRecord, Edge, MemoryUnit, Recall

__all__ = [
    "TOMBSTONE_KIND", "TOMBSTONE_TEXT", "Appraiser", "Briefing", "ChangedUnit", "ConflictRecord", "Edge", "Embedder",
    "MemoryStore", "MemoryUnit", "NamespaceRows", "PairJudge", "Recall", "UnitFact", "is_tombstone",
]  # fmt: skip

TOMBSTONE_TEXT = "[forgotten]"
"""Content of every forgotten unit (a unit's content must be non-empty)."""
TOMBSTONE_KIND = "forgotten"
"""Kind of a forgotten unit; recall drops rows of this kind."""


def is_tombstone(unit: MemoryUnit) -> bool:
    """True for a unit whose content was erased by `Memory.forget`."""
    return unit.kind == TOMBSTONE_KIND


@dataclass
class NamespaceRows:
    """Columns of every unit of one namespace, as loaded for the in-memory index."""

    pks: np.ndarray
    ids: list[str]
    content_hashes: list[str]
    contents: list[str]
    columns: dict[str, np.ndarray]
    vectors: list[bytes | None]
    segmented: list[str]


class UnitFact(NamedTuple):
    """The columns of a stored unit that the affect state indexes (`MemoryStore.unit_facts`)."""

    id: str
    created_at: float
    content: str
    kind: str
    invalid_at: float | None
    valence: int
    metadata_json: str

    @property
    def metadata(self) -> dict[str, Any]:
        """The unit's metadata (the empty object most units store is not parsed)."""
        if not self.metadata_json or self.metadata_json == "{}":
            return {}
        value = json.loads(self.metadata_json)
        return value if isinstance(value, dict) else {}


@dataclass
class ChangedUnit:
    """A unit another connection added or changed: its pk, the unit, its vector for the asked model (or None)
    and its keyword-index text."""

    pk: int
    unit: MemoryUnit
    vector: bytes | None
    segmented: str


@runtime_checkable
class MemoryStore(Protocol):
    """Persistence behind `Memory`: units, vectors, keyword rows, edges and conflict records, by namespace."""

    path: str
    """Where the store lives (a file, ``:memory:`` or a database URL without its password)."""

    @property
    def schema_version(self) -> int: ...

    def transaction(self) -> AbstractContextManager[Any]:
        """All writes inside commit together or not at all; nested blocks join the outermost one."""
        ...

    # -- meta and change detection
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def snapshot_folder(self) -> Path | None:
        """Where index snapshots of this store's namespaces are kept, or None for none."""
        ...

    def counter(self) -> int:
        """The store's change counter now (committed writes of every connection)."""
        ...

    def seen(self) -> int:
        """The change counter this connection's caller reflects (`poll_changes`, `mark_seen`)."""
        ...

    def poll_changes(self) -> tuple[int, int] | None:
        """(last seen, now) of the change counter when another connection wrote since the last look, else None."""
        ...

    def changes(self, since: int, upto: int, model: str, namespaces: Sequence[str]) -> list[ChangedUnit]:
        """Units of `namespaces` written in change counter interval (since, upto], in pk order."""
        ...

    def mark_seen(self, upto: int) -> None:
        """Everything up to this counter value is reflected in the caller's in-memory state."""
        ...

    # -- units
    def add_units(
        self,
        units: Sequence[MemoryUnit],
        hashes: Sequence[str],
        model: str,
        vectors: np.ndarray,
        segmented: Sequence[str] | None = None,
    ) -> list[int]: ...
    def update_unit(self, unit: MemoryUnit) -> None: ...
    def record_access(self, namespace: str, ids: Sequence[str], when: float, times: int = 1) -> None:
        """Count `times` accesses for each of the (distinct) ids, the last at `when`."""
        ...

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]: ...
    def iter_units(self, namespace: str, kind: str | None = None, live: bool = False) -> Iterator[MemoryUnit]:
        """Units of a namespace in insertion order: of one kind when given, without tombstones when `live`."""
        ...

    def unit_facts(
        self, namespace: str, ids: Sequence[str] | None = None, upto_pk: int | None = None
    ) -> list[UnitFact]:
        """(id, created_at, content, kind, invalid_at, valence, metadata_json) of live units (these ids, or every
        one up to `upto_pk`), in insertion order: what the in-process affect state indexes."""
        ...

    def count(self, namespace: str | None = None) -> int: ...
    def namespaces(self) -> list[str]: ...
    def load_namespace(self, namespace: str, model: str) -> NamespaceRows:
        """Every unit of a namespace but its tombstones, with recall's columns and its vector for `model`."""
        ...

    def erase_unit(self, namespace: str, unit_id: str, tomb: MemoryUnit, content: str) -> None:
        """Forget: rewrite the row as `tomb`, drop its keyword row and unshared vector, scrub quotes of
        `content` from other units and conflict records (marked resolved)."""
        ...

    # -- vectors and search
    def get_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...
    def put_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None: ...
    def metadata_pks(self, namespace: str, conditions: Sequence[Condition]) -> set[int]: ...
    def search_vectors(
        self, namespace: str, model: str, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]: ...
    def search_keywords(self, namespace: str, terms: Sequence[str], k: int) -> list[tuple[str, float]]: ...

    # -- graph and conflict records
    def add_edges(self, namespace: str, edges: Sequence[Edge]) -> None: ...
    def edges(self, namespace: str, node: str | None = None) -> list[Edge]: ...
    def add_conflicts(self, records: Sequence[ConflictRecord]) -> None: ...
    def conflicts(
        self, namespace: str, ids: Sequence[str] | None = None, status: str | None = None
    ) -> list[ConflictRecord]: ...
    def resolve_conflict(
        self, namespace: str, conflict_id: str, resolution: str, when: datetime
    ) -> ConflictRecord: ...

    def close(self) -> None: ...


class PairJudge(Protocol):
    """Decides the relation of (older, newer) text pairs; None where it cannot (the scorer's label stands)."""

    band: tuple[float, float]

    def decide(self, pairs: Sequence[tuple[str, str]]) -> list[str | None]: ...
