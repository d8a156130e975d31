"""The recall run behind `Memory.recall`: filters, candidates, the stage pipeline, the selector, access counts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.embed import normalise
from psychoagent.memory.filters import parse_where
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext, Stage
from psychoagent.memory.recall.modulate import check_policy
from psychoagent.memory.recall.retrieve import gather_candidates
from psychoagent.memory.recall.subquery import content_query
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import Affect, Recall, to_datetime, utcnow

Selector = Callable[[Candidates, NamespaceIndex, RecallContext], np.ndarray]
"""Picks the final k positions from scored candidates (default: top-k by score)."""


def run_recall(
    ns: Namespace,
    pipeline: Sequence[Stage],
    selector: Selector,
    query: str,
    *,
    k: int,
    where: dict[str, Any] | str | None,
    context: str | None,
    now: datetime | str | float | None,
    at: datetime | str | float | None,
    affect_state: Affect | None,
    persona: Any,
    policy: str | None,
    rng: np.random.Generator | None,
    extras: dict[str, Any],
) -> list[Recall]:
    """Hybrid recall of one namespace through `pipeline` and `selector`, best first; see `Memory.recall`."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    if k <= 0:
        return []
    conditions = parse_where(where)
    index = ns.index()
    if len(index) == 0:
        return []
    as_of = to_datetime(at)
    when = to_datetime(now) or as_of or utcnow()
    qvec = normalise(ns.embedder.embed_queries([query]))[0]
    ctx = RecallContext(
        query=query, query_vector=qvec, k=k, now=when.timestamp(), dense_floor=ns.similarity_floor,
        dense_weight=ns.dense_weight, conditions=conditions, context=context,
        affect_state=affect_state, persona=persona, policy=policy, rng=rng, extras=extras,
    )  # fmt: skip
    meta_conds = [c for c in conditions if c.field.startswith("metadata.")]
    meta_pks = ns.store.metadata_pks(ns.name, meta_conds) if meta_conds else None
    mask = index.mask(conditions, meta_pks)
    if as_of is not None:
        valid = index.valid_mask(as_of.timestamp())
        mask = valid if mask is None else mask & valid
    cfg = ns.config.recall
    check_policy(policy)
    n = max(cfg.candidates, k * ns.affect_config.modulation.pool_factor)
    content = None
    sub = content_query(query, index.conversation) if cfg.content_query_weight > 0 else None
    if sub is not None:
        content = replace(ctx, query=sub, query_vector=normalise(ns.embedder.embed_queries([sub]))[0])
    cands = gather_candidates(index, ctx, mask, n, cfg.keyword_signal, cfg, content)
    if len(cands.rows) == 0:
        return []
    for stage in pipeline:
        stage(cands, index, ctx, cfg)
    chosen = selector(cands, index, ctx)
    rows = cands.rows[chosen]
    ids = [index.ids[int(r)] for r in rows]
    units = {u.id: u for u in ns.store.get_units(ns.name, ids)}  # ids from the index: no checks
    # every part of the chosen candidates (and the score) as plain floats, NaN and infinities as 0, in one conversion
    names = list(cands.parts)
    table = _finite([*(cands.parts[name][chosen] for name in names), cands.score[chosen]])
    scores = table.pop()
    parts = dict(zip(names, table, strict=True))
    results = [
        Recall(unit=units[uid], score=scores[i], parts={name: values[i] for name, values in parts.items()})
        for i, uid in enumerate(ids)
        if uid in units
    ]
    if cfg.track_access and ids:
        ns.store.record_access(ns.name, ids, ctx.now)
        index.touch(rows, ctx.now)
    return results


def _finite(columns: list[np.ndarray]) -> list[list[float]]:
    """Plain floats of equally long arrays, 0.0 where a value is not finite (as `retrieve.finite_or_zero` does one
    by one); one array of them all, so a recall's dozen parts take one conversion."""
    floats = np.array(columns, dtype=np.float64).reshape(len(columns), -1)
    out: list[list[float]] = np.where(np.isfinite(floats), floats, 0.0).tolist()
    return out
