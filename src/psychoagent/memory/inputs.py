"""What `Memory` accepts from callers: the appraiser protocol and its resolution, and finite JSON-like values."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from psychoagent.types import Affect


class Appraiser(Protocol):
    """Labels an event with an Affect given the agent's goals (see psychoagent.affect)."""

    def appraise(self, event: str, goals: Sequence[str] = (), context: Any = None) -> Affect: ...


def check_finite(value: Any, where: str) -> None:
    """Refuse NaN and infinities anywhere in a JSON-like value: SQLite's JSON functions cannot read them back."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} must hold finite numbers, got {value!r}")
    if isinstance(value, Mapping):
        for key, item in value.items():
            check_finite(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_finite(item, f"{where}[{i}]")


def resolve_appraiser(appraiser: Appraiser | str | None) -> Appraiser | None:
    """'heuristic' (default) -> HeuristicAppraiser; None -> no appraisal; an object is used as is."""
    if isinstance(appraiser, str):
        if appraiser != "heuristic":
            raise ValueError(
                f"unknown appraiser {appraiser!r}; pass 'heuristic', None or an Appraiser object"
            )
        from psychoagent.affect.heuristic import HeuristicAppraiser

        return HeuristicAppraiser()
    return appraiser
