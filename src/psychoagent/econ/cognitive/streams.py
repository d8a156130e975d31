"""Per-household random streams: what a household draws does not depend on which other households are simulated
alongside it, so a run split into shards draws exactly what one process draws."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def household_generator(base: int, household: int) -> np.random.Generator:
    """The generator of one household: an independent stream of the run's seed `base` (numpy's SeedSequence
    spawn key), the same whichever process or shard simulates the household."""
    return np.random.default_rng(np.random.SeedSequence(base, spawn_key=(household,)))


class HouseholdDraws:
    """Stands in for the generator of a batched recall: the j-th uniform draw comes from the j-th asking
    household's own generator (`recall_many` draws one per ask for its exploration)."""

    def __init__(self, generators: Sequence[np.random.Generator]) -> None:
        self.generators = list(generators)

    def random(self, size: int | None = None) -> np.ndarray:
        if size != len(self.generators):
            raise ValueError(f"size: one draw per asking household ({len(self.generators)}), got {size}")
        return np.array([g.random() for g in self.generators])
