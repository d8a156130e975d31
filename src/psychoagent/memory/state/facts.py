"""(created, content, kind) of a namespace's units by id, for conflict detection and recall's pairwise stages.

Units stored or caught up in this process are held; units that were in the store when the state loaded are read
from it when asked for (a bounded cache), so opening a namespace of a million units reads no texts (holding them
all took 7 s and about 0.4 GB at a million units here: docs/benchmarks.md).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

Fact = tuple[float, str, str]
"""(created_at epoch, content, kind) of a unit."""
FETCHED = 50_000
"""Facts of loaded units kept after a read (recall asks for a few dozen rows at a time)."""


class Facts:
    """The facts of a namespace's units: held for units indexed in this process, fetched for loaded ones."""

    def __init__(self, fetch: Callable[[list[str]], dict[str, Fact]] | None = None) -> None:
        self.own: dict[str, Fact] = {}
        self.fetch = fetch
        """Reads the facts of loaded live units by id (missing ids are absent from the answer)."""
        self._fetched: OrderedDict[str, Fact] = OrderedDict()

    def __setitem__(self, unit_id: str, fact: Fact) -> None:
        self.own[unit_id] = fact

    def texts(self, unit_ids: Sequence[str]) -> list[str]:
        """The content of each unit in order ("" for one not found), loaded ones read in one query."""
        found = self.many(unit_ids)
        return [found[uid][1] if uid in found else "" for uid in unit_ids]

    def many(self, unit_ids: Iterable[str]) -> dict[str, Fact]:
        """The facts of these units, loaded ones read from the store in one query."""
        found: dict[str, Fact] = {}
        missing: list[str] = []
        for uid in unit_ids:
            fact = self.own.get(uid) or self._fetched.get(uid)
            if fact is not None:
                found[uid] = fact
            elif uid not in found:
                missing.append(uid)
        if missing and self.fetch is not None:
            for uid, fact in self.fetch(list(dict.fromkeys(missing))).items():
                found[uid] = self._fetched[uid] = fact
            while len(self._fetched) > FETCHED:
                self._fetched.popitem(last=False)
        return found

    def pop(self, unit_id: str) -> Fact | None:
        """Forget a unit's fact; returns what was held (a loaded unit's only if it was read since)."""
        fetched = self._fetched.pop(unit_id, None)
        return self.own.pop(unit_id, None) or fetched
