"""What a cognitive firm has learnt from its reviewed expansions: the mean shortfall of the recent ones it
recalls (from its memory, or its own records without one), which tempers the next plan."""

from __future__ import annotations

import numpy as np

from psychoagent.agent.cognition import tick_time
from psychoagent.econ.firms.state import FirmState


def recalled_lesson(t: int, s: FirmState, lesson_months: int) -> tuple[float, int]:
    """Mean shortfall of the expansions reviewed in the last `lesson_months` that the firm recalls (its memory;
    its own records without one): old lessons fade."""
    if s.memory is None:
        errors = [e for tick, e in s.lessons[-4:] if t - tick <= lesson_months]
    else:
        if not s.lessons:
            return 0.0, 0
        hits = s.memory.recall("expansion reviewed: output against capacity added, success or failure", k=4,
                               where={"metadata.kind_of": "expansion_outcome"}, now=tick_time(t))  # fmt: skip
        recent = [h for h in hits if t - float(h.unit.metadata.get("tick", t)) <= lesson_months]
        errors = [float(h.unit.metadata.get("error", 0.0)) for h in recent]
    return (float(np.mean(errors)), len(errors)) if errors else (0.0, 0)
