"""Label schemes (what 'negative' means in a domain), rule overrides and quantisation bands (seed 3.1 and 5.1)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from psychoagent.types import Affect


class Rule(BaseModel):
    """A hard override: when `pattern` matches the event text, clamp the labels (e.g. failure -> negative, alarmed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    pattern: str = Field(..., description="regular expression, case-insensitive, searched in the event text")
    max_valence: int | None = Field(None, ge=-2, le=2)
    min_valence: int | None = Field(None, ge=-2, le=2)
    min_arousal: int | None = Field(None, ge=1, le=3)
    min_conflict: int | None = Field(None, ge=0, le=4)

    def apply(self, text: str, affect: Affect) -> Affect:
        """The affect with this rule's bounds applied if the pattern matches, else unchanged."""
        if not re.search(self.pattern, text, re.I):
            return affect
        valence, arousal, conflict = affect.valence, affect.arousal, affect.conflict_intensity
        if self.max_valence is not None:
            valence = min(valence, self.max_valence)
        if self.min_valence is not None:
            valence = max(valence, self.min_valence)
        if self.min_arousal is not None:
            arousal = max(arousal, self.min_arousal)
        if self.min_conflict is not None:
            conflict = max(conflict, self.min_conflict)
        if (valence, arousal, conflict) == (affect.valence, affect.arousal, affect.conflict_intensity):
            return affect
        reason = f"{affect.reason} Rule '{self.name}' applied.".strip()
        return affect.with_labels(
            valence=valence, arousal=arousal, conflict_intensity=conflict, reason=reason
        )


TASK_FAILURE = Rule(
    name="task failure",
    pattern=r"\b(task|job|order|payment|deployment|build|test)s? (has |have )?failed\b|任务失败|失败了|执行失败",
    max_valence=-1,
    min_arousal=3,
)
"""Seed 5.1: a task failure is always negative valence and high arousal."""


class LabelScheme(BaseModel):
    """What the labels mean in one domain: extra positive/negative words and the hard rules of that domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    positive_words: tuple[str, ...] = ()
    negative_words: tuple[str, ...] = ()
    arousal_words: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = (TASK_FAILURE,)


SCHEMES: dict[str, LabelScheme] = {
    "general": LabelScheme(name="general"),
    "customer_service": LabelScheme(
        name="customer_service",
        positive_words=("resolved", "satisfied", "five stars", "thank you", "已解决", "满意", "好评"),
        negative_words=("complaint", "escalate", "escalated", "refund", "churn", "waiting", "投诉", "退款", "升级处理"),
        arousal_words=("escalate", "escalated", "manager", "lawyer", "升级", "经理"),
        rules=(TASK_FAILURE, Rule(name="escalation", pattern=r"escalat|升级投诉", max_valence=-1, min_arousal=3)),
    ),
    "game_npc": LabelScheme(
        name="game_npc",
        positive_words=("gift", "helped", "saved", "ally", "trade", "礼物", "帮助", "救了", "结盟"),
        negative_words=("betrayed", "attacked", "stole", "lied", "killed", "背叛", "攻击", "偷", "撒谎"),
        arousal_words=("attacked", "ambush", "dragon", "killed", "袭击", "伏击"),
        rules=(Rule(name="betrayal", pattern=r"betray|背叛", max_valence=-2, min_arousal=3, min_conflict=3),),
    ),
    "economy": LabelScheme(
        name="economy",
        positive_words=("profit", "dividend", "raise", "hired", "rally", "盈利", "分红", "加薪", "上涨"),
        negative_words=("loss", "bankrupt", "fired", "layoff", "crash", "default", "亏损", "破产", "裁员", "暴跌"),
        arousal_words=("crash", "bankrupt", "shock", "panic", "暴跌", "破产", "恐慌"),
        rules=(TASK_FAILURE, Rule(name="bankruptcy", pattern=r"bankrupt|破产", max_valence=-2, min_arousal=3)),
    ),
}  # fmt: skip


def get_scheme(scheme: str | LabelScheme | None) -> LabelScheme:
    """A scheme by name ('general', 'customer_service', 'game_npc', 'economy') or as given."""
    if scheme is None:
        return SCHEMES["general"]
    if isinstance(scheme, LabelScheme):
        return scheme
    if scheme not in SCHEMES:
        raise ValueError(f"unknown label scheme {scheme!r}; choose one of {sorted(SCHEMES)}")
    return SCHEMES[scheme]


def apply_rules(text: str, affect: Affect, rules: Sequence[Rule]) -> Affect:
    """Apply every matching rule in order."""
    for rule in rules:
        affect = rule.apply(text, affect)
    return affect


def snap(value: int, levels: Sequence[int]) -> int:
    """The allowed level nearest to value (ties go to the level nearer zero, i.e. the calmer label)."""
    return min(levels, key=lambda level: (abs(level - value), abs(level)))


def quantise(
    affect: Affect, valence: Sequence[int], arousal: Sequence[int], conflict: Sequence[int]
) -> Affect:
    """Snap each label to its band: fewer, clearer levels make labels stable across calls (seed 5.1)."""
    return affect.with_labels(
        valence=snap(affect.valence, valence),
        arousal=snap(affect.arousal, arousal),
        conflict_intensity=snap(affect.conflict_intensity, conflict),
    )
