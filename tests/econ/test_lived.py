"""A month lived through: a household whose holdings moved enough to draw attention remembers it and, weighed by
its arousal, its persona moves (Malmendier & Nagel 2011); routine months and affect switched off move nothing."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from psychoagent.agent.config import AblationConfig, CognitiveConfig
from psychoagent.econ.cognitive.reflect import Reflect


class _Mind:
    def __init__(self) -> None:
        self.notes: list[tuple[int, str, Any, dict[str, Any]]] = []

    def note(self, tick: int, text: str, affect: Any = None, **meta: Any) -> None:
        self.notes.append((tick, text, affect, meta))


def _reflect(holdings: dict[int, dict[str, float]], affect: bool = True) -> Reflect:
    markets = SimpleNamespace(holdings=lambda i: holdings.get(i, {}))
    cognitive = CognitiveConfig(ablation=AblationConfig(affect_modulation=affect))
    return Reflect(SimpleNamespace(markets=markets, cognitive=cognitive))  # type: ignore[arg-type]


def _month(
    r: Reflect, minds: dict[int, _Mind], prices: dict[str, float], wealth: list[float]
) -> dict[int, Any]:
    view = SimpleNamespace(wealth=np.array(wealth))
    return r.lived(1, prices, view, minds)  # type: ignore[arg-type]


def test_a_crash_in_the_holdings_is_remembered_and_moves_the_persona() -> None:
    held = {0: {"stock:tech": 10.0, "bond": 5.0}, 1: {"bond": 50.0}}
    r, minds = _reflect(held), {0: _Mind(), 1: _Mind()}
    assert _month(r, minds, {"stock:tech": 20.0, "bond": 100.0}, [1000.0, 5000.0]) == {}  # no month before
    out = _month(r, minds, {"stock:tech": 14.0, "bond": 100.0}, [1000.0, 5000.0])
    assert set(out) == {0}  # the bond holder lived nothing: bonds are not risky
    event = out[0]
    assert event.actual == pytest.approx(-0.3) and event.domain == "portfolio"
    ((_tick, text, felt, meta),) = minds[0].notes
    assert "lost 30%" in text and felt.arousal >= 2 and meta["actual"] == pytest.approx(-0.3)
    weight = r.kit.cognitive.lived_weight
    assert event.stake == pytest.approx(
        0.2 * weight * (felt.arousal_score - 1.0)
    )  # 200 of 1000 held in stocks
    assert not minds[1].notes


def test_a_routine_month_is_not_lived() -> None:
    r, mind = _reflect({0: {"stock:tech": 10.0}}), _Mind()
    _month(r, {0: mind}, {"stock:tech": 20.0}, [1000.0])
    assert _month(r, {0: mind}, {"stock:tech": 19.0}, [1000.0]) == {} and not mind.notes  # -5 %: routine


def test_without_affect_the_month_is_remembered_but_moves_no_trait() -> None:
    r, mind = _reflect({0: {"stock:tech": 10.0}}, affect=False), _Mind()
    _month(r, {0: mind}, {"stock:tech": 20.0}, [1000.0])
    assert _month(r, {0: mind}, {"stock:tech": 12.0}, [1000.0]) == {}
    assert len(mind.notes) == 1 and "lost 40%" in mind.notes[0][1]
