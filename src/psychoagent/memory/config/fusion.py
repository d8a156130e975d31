"""How a briefing is written: the conflict-resolution strategies it may suggest and the shape of its text."""

from __future__ import annotations

from pydantic import Field

from psychoagent.config import ConfigModel, ConflictLevel, NonNegative


class StrategyTemplate(ConfigModel):
    """A conflict-resolution strategy (seed 5.2), chosen when its keywords appear on both sides."""

    name: str
    text: str
    side_a_words: tuple[str, ...] = ()
    side_b_words: tuple[str, ...] = ()
    min_intensity: ConflictLevel = 0


DEFAULT_STRATEGIES: tuple[StrategyTemplate, ...] = (
    StrategyTemplate(
        name="cost_vs_quality",
        text="Cost vs quality: state the cost of each option against the quality it buys, then pick the cheapest "
        "option that meets the stated need, or ask which matters more.",
        side_a_words=("budget", "cost", "cheap", "price", "save", "预算", "成本", "便宜", "省钱", "价格"),
        side_b_words=(
            "quality",
            "best",
            "premium",
            "high-end",
            "performance",
            "质量",
            "最好",
            "高端",
            "性能",
        ),
    ),
    StrategyTemplate(
        name="speed_vs_accuracy",
        text="Speed vs accuracy: deliver a fast first version that is clearly marked as preliminary and schedule "
        "the careful check.",
        side_a_words=("fast", "quick", "deadline", "urgent", "asap", "快", "尽快", "截止", "紧急"),
        side_b_words=(
            "accurate",
            "accuracy",
            "thorough",
            "careful",
            "correct",
            "准确",
            "仔细",
            "全面",
            "正确",
        ),
    ),
    StrategyTemplate(
        name="ask_clarification",
        text="Ask for clarification: the two sides are equally recent or fundamental; confirm which one holds "
        "before acting.",
        min_intensity=3,
    ),
    StrategyTemplate(
        name="prefer_latest",
        text="Prefer the latest instruction, but record the deviation from the earlier one and mention it.",
    ),
)


class FusionConfig(ConfigModel):
    """How a briefing is written (seed 2.3 fusion, 5.2 strategies)."""

    strategies: tuple[StrategyTemplate, ...] = DEFAULT_STRATEGIES
    """tried in order; the first whose words match both sides wins"""
    clarify_window_seconds: NonNegative = 60.0
    """two conflicting instructions closer in time than this call for clarification"""
    include_partners: bool = True
    """pull the other side of a recalled conflict into the briefing if recall missed it"""
    summary_words: int = Field(120, ge=10)
    """word limit of the optional LLM summary"""
