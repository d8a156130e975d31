"""The cognitive loop as named steps: run in order, a subset on demand, one step replaced without the others."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from psychoagent.agent.loop import STEPS, Loop


def recorder(name: str) -> Callable[[list[str]], None]:
    return lambda state: state.append(name)


def test_steps_run_in_the_loops_order_whatever_order_they_are_given() -> None:
    loop: Loop[list[str]] = Loop({name: recorder(name) for name in reversed(STEPS)})
    assert loop.run([]) == list(STEPS)
    assert loop.run([], "act", "perceive") == ["perceive", "act"]  # the loop's order, not the caller's


def test_replace_swaps_one_step_and_keeps_the_loop() -> None:
    loop: Loop[list[str]] = Loop({name: recorder(name) for name in STEPS})
    swapped = loop.replace(decide=recorder("ask the model"))
    assert swapped.run([], "recall", "decide", "guard") == ["recall", "ask the model", "guard"]
    assert loop.run([], "decide") == ["decide"]  # the original loop is unchanged


def test_a_loop_needs_all_six_steps_and_known_names() -> None:
    with pytest.raises(ValueError, match="missing"):
        Loop({"perceive": recorder("perceive")})
    loop: Loop[list[str]] = Loop({name: recorder(name) for name in STEPS})
    with pytest.raises(ValueError, match="unknown"):
        loop.run([], "dream")
