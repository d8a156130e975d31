"""The write path: observed texts -> units -> conflict detection -> one store transaction -> the in-memory index.

A batch is handled in columns: its texts are embedded in one call; the store writes each table with one
executemany; the index takes the batch as columns and builds its keyword postings and conversation facts on the
next read that needs them. Conflicts of the batch are planned before the transaction (`updates.prepare`, which
returns what to store) and applied inside it (`after_store`), so units and records commit together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from psychoagent.affect.config import AffectConfig
from psychoagent.memory.conflicts.records import ConflictLog
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.state.namespace import Namespace
from psychoagent.memory.write.units import _NO_ARGS, build_unit, build_units, collector_paused
from psychoagent.memory.write.updates import Plan, prepare
from psychoagent.text import tokens
from psychoagent.types import Edge, MemoryUnit, to_epoch


def observe(ns: Namespace, text: str, args: Mapping[str, Any] = _NO_ARGS) -> MemoryUnit:
    """Appraise, encode and store one event with its checked `observe` arguments; returns the stored unit."""
    return store_units(ns, [build_unit(ns, text, args)])[0]


def observe_batch(ns: Namespace, items: Iterable[str | Mapping[str, Any]]) -> list[MemoryUnit]:
    """Build and store checked `observe_many` items (texts or dicts of `observe` arguments) in one transaction."""
    batch: list[tuple[str, Mapping[str, Any]]] = []
    for item in items:
        if isinstance(item, str):
            batch.append((item, _NO_ARGS))
        else:
            kwargs = dict(item)
            text = kwargs.pop("text", None)
            if text is None:
                raise ValueError("each item needs a 'text'")
            batch.append((text, kwargs))
    vectors: list[Any] = [None] * len(batch)
    if ns.appraiser is not None and ns.takes_vectors():
        todo = [
            i
            for i, (t, kw) in enumerate(batch)
            if kw.get("affect") is None and isinstance(t, str) and t.strip()
        ]
        if todo:  # one batched embedding for appraisal; store_units then finds the vectors cached
            matrix = ns.embed_documents([batch[i][0] for i in todo])[1]
            for row, i in enumerate(todo):
                vectors[i] = matrix[row]
    return store_units(ns, build_units(ns, batch, vectors))


def store_units(ns: Namespace, units: Sequence[MemoryUnit]) -> list[MemoryUnit]:
    """Store built units in one transaction (all or nothing) and index them."""
    if not units:
        return []
    namespace = ns.name
    ids = [u.id for u in units]
    for unit in units:
        if unit.namespace != namespace:
            raise ValueError(f"unit {unit.id!r} belongs to {unit.namespace!r}, not {namespace!r}")
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate ids within one batch")
    index = ns.index()
    previous = index.last  # the row before this batch: a first turn's window starts there
    hashes, vectors = ns.embed_documents([u.content for u in units])
    plan = before_store(ns, units, vectors, index)
    with collector_paused():  # tokens hold no whitespace: joined and split again they are the same
        words = [tokens(u.content) for u in units]
        segmented = [" ".join(w) for w in words]
    edges = [
        Edge(src=u.id, dst=s, type="derived_from", created_at=u.created_at) for u in units for s in u.sources
    ]
    try:
        # Units, keyword rows, vectors, provenance edges and conflict records commit together or not at all.
        with collector_paused(), ns.store.transaction():
            pks = ns.store.add_units(units, hashes, ns.embedder.name, vectors, segmented)
            index.append(pks, units, vectors, words)
            if edges:
                ns.add_edges(edges)
            after_store(ns, units, plan)
    except BaseException:
        ns.drop_caches()
        raise
    created = [to_epoch(u.created_at) for u in units]
    ns.shared.add_turn_context(index, len(index) - len(units), [u.content for u in units], created, previous)
    return list(units)


def before_store(
    ns: Namespace, units: Sequence[MemoryUnit], vectors: np.ndarray, index: NamespaceIndex
) -> Plan | None:
    """Detect conflicts of a batch about to be stored (mutates the units' affect and validity)."""
    state = ns.affect()
    if not ns.affect_config.conflicts.detect or state.paused:
        return None
    goal_units: dict[str, str] = {}
    if any(p.startswith("goal: ") for u in units for p in u.affect.conflict_parties):
        rows = ns.store.iter_units(ns.name, kind="goal")
        goal_units = {u.content.strip().rstrip(".。"): u.id for u in rows}
    own = getattr(ns.appraiser, "config", None)
    config = own.heuristic if isinstance(own, AffectConfig) else AffectConfig().heuristic
    return prepare(
        state, units, vectors, index, ns.affect_config, config, goal_units, ns.similarity_floor, ns.pair_judge,
        ns.embedder,
    )  # fmt: skip


def after_store(ns: Namespace, units: Sequence[MemoryUnit], plan: Plan | None) -> None:
    """Write records and edges, mark superseded units, update the slot index and the monitor."""
    state = ns.affect()
    if plan is not None:
        ConflictLog(ns.store).add(plan.records)
        for old_id, (when, new_id) in plan.superseded.items():
            old = ns.get(old_id)
            if old is not None and old.invalid_at is None:
                old.invalid_at = when
                old.metadata["superseded_by"] = new_id
                ns.update(old)
        for unit, slots in plan.slots:
            state.index_unit(unit, slots)
    else:
        for unit in units:
            state.index_unit(unit)
    edges = [*(plan.edges if plan else []),
             *(Edge(src=u.id, dst=s, type="summarises") for u in units if u.kind == "summary" for s in u.sources)]  # fmt: skip
    if edges:
        ns.add_edges(edges)
    assert state.monitor is not None
    state.monitor.observe(list(units))
