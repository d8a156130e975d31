"""Cohorts: when a `cohort` shock starts, newcomers take the place of a share of the households. A newcomer keeps
the household's place, skills, sector and wealth (an inheritance) and starts again from its first persona, with
no memories, beliefs or expectations: what it knows of the economy is what it lives through from now on
(Malmendier & Nagel 2016: cohorts' inflation expectations follow the inflation of their lifetimes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.contracts import Renews

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy

COHORT_STREAM = 0x0C0487
"""Entropy word of the newcomers' draw: a generator of its own (the run's seed, this word, the month), so a cohort
scenario draws nothing from the streams every run shares."""


def newcomers(model: Economy, tick: int) -> list[int]:
    """Replace `model.levers.newcomers` of the households at `tick` (drawn from their own generator); returns
    their indices, in order (none when no cohort joins now)."""
    share = model.levers.newcomers
    if share <= 0:
        return []
    hh = model.households
    k = min(hh.n, max(1, round(share * hh.n)))
    draws = np.random.default_rng((model.run_seed, COHORT_STREAM, tick))
    chosen = np.sort(draws.choice(hh.n, size=k, replace=False)).tolist()
    hh.joined[chosen] = tick
    hh.expected_inflation[chosen] = np.nan
    model.set_personas({i: model.first_personas[i] for i in chosen})
    if isinstance(model.policy, Renews):
        model.policy.renew(chosen, tick)
    return chosen
