"""Affect-modulated recall (seed 2.3, 3.3): bounded multiplicative factors from the agent's current state.

Each policy adds named parts to the score (never a filter): ``conflict-first`` boosts high-conflict memories in a
high-conflict state and negative lessons in a negative state; ``lessons`` only the latter; ``mood-congruent``
favours memories whose valence and arousal resemble the state; ``none`` leaves the ranking alone. A memory's
affect is decayed by age and by later successes on the same subject before it is used (seed 5.4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psychoagent.memory.config import DecayConfig, ModulationConfig, RecallConfig
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext
from psychoagent.memory.recall.retrieve import SECONDS_PER_DAY
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import Affect

POLICIES = ("conflict-first", "lessons", "mood-congruent", "none")


# ---- pure functions ----------------------------------------------------------------------------------------


def decay_factor(
    age_seconds: np.ndarray, successes: np.ndarray, half_life_days: float, success_half_count: float
) -> np.ndarray:
    """0.5 ** (age / half-life) * 0.5 ** (later successes / half count): geometric in both, in (0, 1]."""
    age_days = np.clip(age_seconds, 0.0, None) / SECONDS_PER_DAY
    return np.power(0.5, age_days / half_life_days) * np.power(
        0.5, np.asarray(successes) / success_half_count
    )


def conflict_factor(state_conflict: int, memory_conflict: np.ndarray, cfg: ModulationConfig) -> np.ndarray:
    """1 + w * conflict / 4 when the state is high-conflict, else 1; capped at max_factor."""
    if state_conflict < cfg.conflict_state_threshold:
        return np.ones_like(memory_conflict, dtype=np.float64)
    return np.minimum(1.0 + cfg.conflict_weight * np.clip(memory_conflict, 0, 4) / 4.0, cfg.max_factor)


def lesson_factor(state_valence: int, memory_valence: np.ndarray, cfg: ModulationConfig) -> np.ndarray:
    """1 + w * max(0, -valence) / 2 when the state is negative (past trouble as a lesson), else 1."""
    if state_valence >= 0:
        return np.ones_like(memory_valence, dtype=np.float64)
    return np.minimum(1.0 + cfg.lesson_weight * np.clip(-memory_valence, 0, 2) / 2.0, cfg.max_factor)


def congruence_factor(state: float, memory: np.ndarray, span: float, weight: float) -> np.ndarray:
    """1 + w * (1 - 2 * |state - memory| / span): 1 + w when equal, 1 - w at opposite ends of the scale."""
    return 1.0 + weight * (1.0 - 2.0 * np.clip(np.abs(state - memory) / span, 0.0, 1.0))


def check_policy(policy: str | None) -> None:
    if policy is not None and policy not in POLICIES:
        raise ValueError(f"unknown recall policy {policy!r}; choose one of {', '.join(POLICIES)}")


# ---- the stage -----------------------------------------------------------------------------------------------


class AffectStage:
    """Pipeline stage: resolves the state (given, or appraised from the context) and applies the policy's factors."""

    def __init__(self, ns: Namespace) -> None:
        self.ns = ns

    def state(self, ctx: RecallContext) -> Affect | None:
        """The state to modulate by: the given one, else the appraisal of the context (if an appraiser is set)."""
        if ctx.affect_state is not None:
            return ctx.affect_state
        appraiser = self.ns.appraiser
        if ctx.context and appraiser is not None and ctx.policy != "none":
            goals = ctx.extras.get("goals", ())
            # Named embedder, no vector: the lexical head, so recall never waits for an extra embedding.
            return appraiser.appraise(ctx.context, goals, {"embedder": self.ns.embedder.name})
        return None

    def __call__(
        self, cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig
    ) -> None:
        check_policy(ctx.policy)
        settings = self.ns.affect_config
        mod, decay = settings.modulation, settings.decay
        rows = cands.rows
        tiers = index.column("tier")[rows]
        if len(rows) and (tiers == "working").any() and mod.working_boost > 1:
            cands.multiply("working", np.where(tiers == "working", mod.working_boost, 1.0))
        state = self.state(ctx)
        ctx.affect_state = state
        if state is None or ctx.policy == "none" or len(rows) == 0:
            return
        policy = ctx.policy or mod.policy
        ctx.policy = policy
        created = index.column("created_at")[rows]
        factor = self.decay(rows, index, ctx.now, created, decay)
        valence = index.column("valence")[rows].astype(np.float64) * factor
        arousal = 1.0 + (index.column("arousal")[rows].astype(np.float64) - 1.0) * factor
        conflict = index.column("conflict_intensity")[rows].astype(np.float64) * factor
        cands.parts["affect_decay"] = factor
        if policy == "conflict-first":
            cands.multiply("affect_conflict", conflict_factor(state.conflict_intensity, conflict, mod))
            cands.multiply("affect_lesson", lesson_factor(state.valence, valence, mod))
        elif policy == "lessons":
            cands.multiply("affect_lesson", lesson_factor(state.valence, valence, mod))
        elif policy == "mood-congruent":
            cands.multiply(
                "affect_mood", congruence_factor(state.valence, valence, 4.0, mod.congruence_weight)
            )
            cands.multiply(
                "affect_arousal",
                congruence_factor(state.arousal, arousal, 2.0, mod.arousal_congruence_weight),
            )

    def decay(
        self, rows: np.ndarray, index: NamespaceIndex, now: float, created: np.ndarray, cfg: DecayConfig
    ) -> np.ndarray:
        """Per-candidate affect decay from age and later successes on the same subject."""
        state = self.ns.affect()
        successes = np.array(
            [state.successes_after(index.ids[int(r)], float(c)) for r, c in zip(rows, created, strict=True)],
            dtype=np.float64,
        )
        return decay_factor(now - created, successes, cfg.half_life_days, cfg.success_half_count)


def unmodulated(cands: Candidates) -> np.ndarray:
    """The score without the affect factors (what plain recall would have ranked by)."""
    score = cands.score.copy()
    for name in ("affect_conflict", "affect_lesson", "affect_mood", "affect_arousal"):
        part = cands.parts.get(name)
        if part is not None:
            score = score / np.where(part == 0, 1.0, part)
    return score


def describe_state(state: Affect | None) -> dict[str, Any]:
    return {} if state is None else state.model_dump(include={"valence", "arousal", "conflict_intensity"})
