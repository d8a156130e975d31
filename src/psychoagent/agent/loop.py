"""The cognitive loop as a list of named steps: perceive -> recall -> decide -> guard -> act -> reflect.

Each step is one concern (Concordia's components are the model) and any callable of the loop's state, the tick's
blackboard that earlier steps wrote and later ones read. A prefab assembles the steps; a variant replaces one of
them (the LLM policy swaps `decide`) instead of subclassing the loop. `run` calls steps in the loop's order, all
of them or the ones named, so a caller may run some here and the rest elsewhere (a sharded run decides in its
shards and acts on the driver).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, TypeVar

from psychoagent.agent.contracts import Step

__all__ = ["STEPS", "Loop"]

STEPS = ("perceive", "recall", "decide", "guard", "act", "reflect")
"""The steps of one tick of a cognitive agent, in order."""

S = TypeVar("S")


class Loop(Generic[S]):
    """The six steps of one cognitive loop, by name; `replace` gives a loop with some of them swapped."""

    def __init__(self, steps: Mapping[str, Step[S]]) -> None:
        unknown = sorted(set(steps) - set(STEPS))
        missing = [name for name in STEPS if name not in steps]
        if unknown or missing:
            raise ValueError(f"a loop has the steps {', '.join(STEPS)}; unknown {unknown}, missing {missing}")
        self.steps: dict[str, Step[S]] = {name: steps[name] for name in STEPS}

    def __getitem__(self, name: str) -> Step[S]:
        return self.steps[name]

    def replace(self, **steps: Step[S]) -> Loop[S]:
        """This loop with the named steps replaced (e.g. `loop.replace(decide=AskTheModel(...))`)."""
        return Loop({**self.steps, **steps})

    def run(self, state: S, *names: str) -> S:
        """Call the named steps (all when none are named) on `state` in the loop's order; returns `state`."""
        wanted = set(names) if names else set(STEPS)
        unknown = sorted(wanted - set(STEPS))
        if unknown:
            raise ValueError(f"unknown steps {unknown}; the loop's steps are {', '.join(STEPS)}")
        for name in STEPS:
            if name in wanted:
                self.steps[name](state)
        return state
