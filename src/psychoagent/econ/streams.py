"""Common random numbers: each part of a month draws from its own generator, spawned from the model's seed.

Two runs of one seed that differ in a policy (a rate hike, an ablation) then still share the draws of the labour
market, the goods market, the asset markets and the firms' price and wage steps, even where one part draws more
numbers than the other: the difference between the runs is the policy's effect with far less of the noise of
unrelated draws (common random numbers, Law 2015, "Simulation Modeling and Analysis", ch. 11).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Streams:
    """One generator per part of the month; none of them is shared with another part."""

    labour: np.random.Generator
    """who is willing to work, who reaches an open job, the order of the queue at each firm"""
    goods: np.random.Generator
    """the order in which households are served when a good is rationed"""
    markets: np.random.Generator
    """information, news and the investors' orders in the asset markets"""
    firms: np.random.Generator
    """the draws of the firms' monthly price and wage steps"""

    @classmethod
    def spawn(cls, rng: np.random.Generator) -> Streams:
        """Four independent child generators of `rng` (numpy's SeedSequence spawning)."""
        labour, goods, markets, firms = rng.spawn(4)
        return cls(labour=labour, goods=goods, markets=markets, firms=firms)
