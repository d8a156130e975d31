"""The cognitive agent's protocols: what it perceives, what it believes, and one step of its loop."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, TypeVar

__all__ = ["Knowledge", "Observed", "Step"]

S_contra = TypeVar("S_contra", contravariant=True)


class Observed(Protocol):
    """What the agent perceives: anything with a one-line text (the economy's `Observation`)."""

    @property
    def text(self) -> str: ...


class Knowledge(Protocol):
    """An agent's beliefs: a graph it can traverse from entities, and periodic reflection into new beliefs."""

    def seed_priors(self, when: datetime) -> None: ...

    def neighbours(self, entities: Sequence[str], depth: int) -> dict[str, int]: ...

    def reflect(self, when: datetime, min_evidence: int) -> list[str]: ...


class Step(Protocol[S_contra]):
    """One concern of the cognitive loop (perceive, recall, decide, guard, act or reflect): it reads what earlier
    steps left in the loop's state (a tick's blackboard) and writes its own part."""

    def __call__(self, state: S_contra, /) -> None: ...
