"""The households as a population: their state in numpy arrays (index i = household i, so a month is
vectorised), their personas drawn from the archetype mix, their sectors and skills."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from psychoagent.econ.config import HouseholdConfig, SectorConfig
from psychoagent.econ.rules import pareto_skills
from psychoagent.persona import Persona

FloatArray = NDArray[np.float64]
TRAIT_COLUMNS = ("risk_preference", "optimism", "learning_rate", "social_tendency")
ALLOC_COLUMNS = ("alloc_consume", "alloc_save", "alloc_invest", "alloc_rnd")


@dataclass
class HouseholdArrays:
    """State of all households, index i = household i (money in currency units, flows per month)."""

    skill: FloatArray
    sector: NDArray[np.int64]
    equity: FloatArray
    cash: FloatArray
    deposits: FloatArray
    wage_income: FloatArray
    income: FloatArray
    worked: NDArray[np.bool_]
    consumption: FloatArray
    consume_share: FloatArray
    work_prob: FloatArray
    traits: FloatArray
    allocation: FloatArray
    joined: NDArray[np.int64]
    """Month the household's present member joined (0: from the start; a cohort's newcomers, its month)."""
    expected_inflation: FloatArray
    """Inflation over the next 12 months the household expects (NaN: it forms none, e.g. a rule household)."""

    @property
    def n(self) -> int:
        return int(self.skill.size)

    @property
    def wealth(self) -> FloatArray:
        return self.cash + self.deposits


def make_personas(n: int, cfg: HouseholdConfig, rng: np.random.Generator) -> list[Persona]:
    """Draw households' personas from the archetype mix, with small Gaussian jitter on scalar traits."""
    names = list(cfg.personas)
    weights = np.array([cfg.personas[k] for k in names], dtype=float)
    if not names or weights.sum() <= 0 or (weights < 0).any():
        raise ValueError(
            f"household.personas needs non-negative weights with a positive sum, got {cfg.personas}"
        )
    templates = [Persona.archetype(k) for k in names]
    picks = rng.choice(len(names), size=n, p=weights / weights.sum())
    noise = rng.normal(0.0, cfg.persona_jitter, size=(n, 4)) if cfg.persona_jitter > 0 else np.zeros((n, 4))
    out = []
    for i, k in enumerate(picks):
        base = templates[int(k)]
        out.append(
            Persona.archetype(
                base.name,
                risk_preference=float(np.clip(base.risk_preference + noise[i, 0], 0.0, 1.0)),
                optimism=float(np.clip(base.optimism + noise[i, 1], -1.0, 1.0)),
                learning_rate=float(np.clip(base.learning_rate + noise[i, 2], 0.0, 1.0)),
                social_tendency=float(np.clip(base.social_tendency + noise[i, 3], 0.0, 1.0)),
            )
        )
    return out


def sector_attachment(n: int, labour_shares: list[float], rng: np.random.Generator) -> NDArray[np.int64]:
    """Sector of each household: counts are the labour shares x n rounded by largest remainder, in random order.

    Drawing each household's sector independently lets a 100-household economy get 7 steel workers where the
    input-output ratio assumes 10, which makes steel a bottleneck in one seed and not another; quotas keep the
    sector sizes the calibration assumes (stratified sampling) while who goes where stays random.
    """
    shares = np.asarray(labour_shares, dtype=float)
    quota = shares / shares.sum() * n
    counts = np.floor(quota).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:
        counts[np.argsort(-(quota - counts), kind="stable")[:short]] += 1
    return rng.permutation(np.repeat(np.arange(shares.size, dtype=np.int64), counts))


def make_households(
    n: int, cfg: HouseholdConfig, sectors: list[SectorConfig], wages: FloatArray, rng: np.random.Generator
) -> tuple[HouseholdArrays, list[Persona]]:
    """Skills (Pareto, sorted), sector attachment by labour share, equity by skill, deposits, personas."""
    skill = pareto_skills(n, cfg.pareto_shape, cfg.skill_cap, rng)
    sector = sector_attachment(n, [s.labour_share for s in sectors], rng)
    equity = skill / skill.sum()
    potential = cfg.hours * skill * wages[sector]
    personas = make_personas(n, cfg, rng)
    traits = np.array([[getattr(p, t) for t in TRAIT_COLUMNS] for p in personas], dtype=float).reshape(n, 4)
    alloc = np.array([p.allocation.as_tuple() for p in personas], dtype=float).reshape(n, 4)
    arrays = HouseholdArrays(
        skill=skill, sector=sector, equity=equity, cash=np.zeros(n),
        deposits=cfg.initial_wealth_months * potential, wage_income=np.zeros(n), income=np.zeros(n),
        worked=np.zeros(n, dtype=bool), consumption=np.zeros(n), consume_share=np.full(n, 0.5),
        work_prob=np.ones(n), traits=traits, allocation=alloc,
        joined=np.zeros(n, dtype=np.int64), expected_inflation=np.full(n, np.nan),
    )  # fmt: skip
    return arrays, personas
