"""Catching up with other processes: apply the units they added or changed to this process's indexes and
affect state, row by row, instead of reloading whole namespaces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from psychoagent.memory.forget import TOMBSTONE_KIND
from psychoagent.memory.index import NamespaceIndex
from psychoagent.memory.stores.base import ChangedUnit

if TYPE_CHECKING:
    from psychoagent.memory.conflicts import NamespaceAffect
    from psychoagent.memory.shared import Shared


def catch_up(shared: Shared, changed: Sequence[ChangedUnit]) -> None:
    """Apply changed units (pk order) to the loaded namespaces; a namespace where one was forgotten elsewhere is
    dropped and reloads on its next use (its index still holds the erased text)."""
    by_ns: dict[str, list[ChangedUnit]] = {}
    for item in changed:
        by_ns.setdefault(item.unit.namespace, []).append(item)
    for ns, items in by_ns.items():
        index = shared.indexes.get(ns)
        state = shared.affect.get(ns)
        if any(it.unit.kind == TOMBSTONE_KIND for it in items):
            shared.indexes.pop(ns, None)
            if state is not None:
                shared.affect[ns] = state.reset()
            continue
        known = set() if index is None else {it.pk for it in items if it.pk in index.row_of_pk}
        fresh = [it for it in items if it.pk not in known]
        if index is not None:
            for it in items:
                if it.pk in known:
                    index.update(it.unit)
            if fresh:
                _append(shared, index, fresh)
        if state is not None and state.loaded:
            _update_affect(state, items)


def _append(shared: Shared, index: NamespaceIndex, fresh: Sequence[ChangedUnit]) -> None:
    """Add new units to the index, embedding those whose vector for this model is not stored yet."""
    missing = [i for i, it in enumerate(fresh) if it.vector is None]
    vectors = np.zeros((len(fresh), index.dim), dtype=np.float32)
    for i, it in enumerate(fresh):
        if it.vector is not None:
            vectors[i] = np.frombuffer(it.vector, dtype=np.float32)
    if missing:
        hashes, embedded = shared.embed_documents([fresh[i].unit.content for i in missing])
        shared.store.put_vectors(shared.embedder.name, list(zip(hashes, embedded, strict=True)))
        vectors[missing] = embedded
    index.append(
        [it.pk for it in fresh], [it.unit for it in fresh], vectors, [it.segmented.split() for it in fresh]
    )


def _update_affect(state: NamespaceAffect, items: Sequence[ChangedUnit]) -> None:
    """New units join the slot and subject indexes; units superseded elsewhere are marked so here too."""
    for it in items:
        unit = it.unit
        if unit.id not in state.facts:
            state.index_unit(unit)
            continue
        if unit.invalid_at is None or unit.id in state.superseded:
            continue
        state.superseded.add(unit.id)
        after = unit.metadata.get("superseded_by")
        if isinstance(after, str):
            state.successor[unit.id] = after
        for entries in state.slots.values():
            for entry in entries:
                if entry.unit_id == unit.id:
                    entry.current = False
