"""The recall run behind `Memory.recall`: filters, candidates, the stage pipeline, the selector, access counts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from psychoagent.embed import normalise
from psychoagent.memory.filters import parse_where
from psychoagent.memory.modulate import check_policy
from psychoagent.memory.retrieve import RecallContext, gather_candidates
from psychoagent.types import Affect, Recall, to_datetime, utcnow

if TYPE_CHECKING:
    from psychoagent.memory.core import Memory


def run_recall(
    memory: Memory,
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
    """Hybrid recall of one namespace, best first; see `Memory.recall`."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    if k <= 0:
        return []
    conditions = parse_where(where)
    index = memory._index()
    if len(index) == 0:
        return []
    as_of = to_datetime(at)
    when = to_datetime(now) or as_of or utcnow()
    qvec = normalise(memory.embedder.embed_queries([query]))[0]
    ctx = RecallContext(
        query=query, query_vector=qvec, k=k, now=when.timestamp(), dense_floor=memory.similarity_floor,
        dense_weight=memory.dense_weight, conditions=conditions, context=context,
        affect_state=affect_state, persona=persona, policy=policy, rng=rng, extras=extras,
    )  # fmt: skip
    meta_conds = [c for c in conditions if c.field.startswith("metadata.")]
    meta_pks = memory.store.metadata_pks(memory.namespace, meta_conds) if meta_conds else None
    mask = index.mask(conditions, meta_pks)
    if as_of is not None:
        valid = index.valid_mask(as_of.timestamp())
        mask = valid if mask is None else mask & valid
    cfg = memory.config.recall
    check_policy(policy)
    n = max(cfg.candidates, k * memory.affect_config.modulation.pool_factor)
    cands = gather_candidates(index, ctx, mask, n, cfg.keyword_signal, cfg)
    if len(cands.rows) == 0:
        return []
    for stage in memory.pipeline:
        stage(cands, index, ctx, cfg)
    chosen = memory.selector(cands, index, ctx)
    rows = cands.rows[chosen]
    ids = [index.ids[int(r)] for r in rows]
    units = {u.id: u for u in memory.store.get_units(memory.namespace, ids)}  # ids from the index: no checks
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
        memory.store.record_access(memory.namespace, ids, ctx.now)
        index.touch(rows, ctx.now)
    return results


def _finite(columns: list[np.ndarray]) -> list[list[float]]:
    """Plain floats of equally long arrays, 0.0 where a value is not finite (as `retrieve.finite_or_zero` does one
    by one); one array of them all, so a recall's dozen parts take one conversion."""
    floats = np.array(columns, dtype=np.float64).reshape(len(columns), -1)
    out: list[list[float]] = np.where(np.isfinite(floats), floats, 0.0).tolist()
    return out
