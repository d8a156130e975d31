"""Pure functions of the economy: skills, demand gap, price/wage adjustment, rationing, taxes, Taylor rule, Gini.

Each is a function of its inputs (and, where random, an explicit numpy Generator) so tests and benchmarks can
exercise it directly. Sources are named where a rule is taken from the literature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from psychoagent.econ.config import BankConfig, BenefitConfig, TaxConfig

FloatArray = NDArray[np.float64]


def pareto_skills(n: int, shape: float, cap: float, rng: np.random.Generator) -> FloatArray:
    """Skills (hourly wage multipliers) ~ Pareto(shape) with minimum 1, clipped to [1, cap], sorted ascending.

    EconAgent (Li et al. 2024) draws hourly skill from a Pareto distribution with shape 8, clipped and sorted.
    """
    if n < 1:
        raise ValueError(f"need at least one household, got n={n}")
    return np.sort(np.clip(rng.pareto(shape, n) + 1.0, 1.0, cap))


def demand_gap(demand: float, supply: float) -> float:
    """phi = (demand - supply) / max(demand, supply), in [-1, 1]; 0 when both are zero (EconAgent)."""
    denom = max(demand, supply)
    if not np.isfinite(denom) or denom <= 0:
        return 0.0
    return float(np.clip((demand - supply) / denom, -1.0, 1.0))


def adjust(level: float, phi: float, step: float, floor: float, u: float) -> float:
    """level * (1 + u * step * phi) floored, with u ~ U(0, 1) drawn by the caller (EconAgent's update)."""
    return max(level * (1.0 + u * step * phi), floor)


def ration(demand: FloatArray, supply: float, order: NDArray[np.intp]) -> FloatArray:
    """Serve `demand` in `order` until `supply` runs out; returns the quantity each buyer gets.

    Buyers earlier in the order are served in full; the one who exhausts the stock gets the remainder; later
    buyers get nothing. The sum served is min(sum(demand), supply) exactly (up to float rounding).
    """
    if supply <= 0:
        return np.zeros_like(demand)
    queued = demand[order]
    before = np.cumsum(queued) - queued
    served_in_order = np.clip(supply - before, 0.0, queued)
    served = np.empty_like(demand)
    served[order] = served_in_order
    return served


def progressive_tax(income: FloatArray, cfg: TaxConfig) -> FloatArray:
    """Tax owed on each period income under marginal brackets (annual edges / periods_per_year).

    Negative income owes nothing. Default brackets: US 2019 single filer, as used by EconAgent.
    """
    edges = np.asarray(cfg.annual_edges, dtype=float) / cfg.periods_per_year
    rates = np.asarray(cfg.rates, dtype=float)
    upper = np.append(edges[1:], np.inf)
    base = np.maximum(np.asarray(income, dtype=float), 0.0)[:, None]
    in_bracket = np.clip(base - edges[None, :], 0.0, (upper - edges)[None, :])
    return np.asarray(in_bracket @ rates, dtype=float)


def unemployment_insurance(
    wages: FloatArray, unhired_pay: FloatArray, cfg: BenefitConfig
) -> tuple[FloatArray, FloatArray]:
    """(benefit, contribution) per household: replacement x the pay a household that was not hired would have
    earned, and the payroll contribution on wages paid. The difference is the scheme's surplus or deficit."""
    if cfg.replacement <= 0:
        zero = np.zeros_like(np.asarray(wages, dtype=float))
        return zero, zero.copy()
    benefit = cfg.replacement * np.maximum(np.asarray(unhired_pay, dtype=float), 0.0)
    return benefit, cfg.contribution * np.maximum(np.asarray(wages, dtype=float), 0.0)


def taylor_rate(inflation: float, unemployment: float, cfg: BankConfig) -> float:
    """Taylor (1993) rule in EconAgent's form, floored at zero.

    r = max(r_n + pi_t + a (pi - pi_t) + b (u_n - u), 0); with the defaults pi = 2 %, u = 4 % gives r = 3 %.
    """
    r = (
        cfg.natural_rate
        + cfg.inflation_target
        + cfg.inflation_weight * (inflation - cfg.inflation_target)
        + cfg.unemployment_weight * (cfg.natural_unemployment - unemployment)
    )
    return max(float(r), 0.0) if np.isfinite(r) else cfg.natural_rate + cfg.inflation_target


def labour_gap(offers: int, applicants: int, neutral: float) -> float:
    """A firm's labour gap: (jobs offered - applicants) / the larger, plus `neutral`, in [-1 + neutral, 1 +
    neutral]. Unfilled jobs raise it (workers are scarce); applicants turned away beyond `neutral` lower it."""
    return (offers - applicants) / max(offers, applicants, 1) + neutral


def wage_gap(goods: float, labour: float, labour_weight: float) -> float:
    """What a wage answers to: the labour gap at `labour_weight`, the goods gap for the rest (0: EconAgent)."""
    return (1.0 - labour_weight) * goods + labour_weight * labour


def floor_step(x: FloatArray, step: float) -> FloatArray:
    """x rounded down to a multiple of `step` inside [0, 1] (EconAgent's composite: min(max(c // 0.02, 0), 50))."""
    return np.asarray(
        np.clip(np.floor(np.nan_to_num(x, nan=0.0) / step + 1e-9) * step, 0.0, 1.0), dtype=float
    )


def price_consumption(price: float, wealth: FloatArray, income: FloatArray, exponent: float) -> FloatArray:
    """Share of wealth and this month's income spent, c = (P / (wealth + income))^e.

    The first consumption rule of EconAgent's composite baseline (`consumption_len` in Li et al. 2024's code).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(wealth + income > 0, (price / (wealth + income)) ** exponent, 1.0)
    return np.asarray(np.nan_to_num(c, nan=1.0, posinf=1.0), dtype=float)


def buffer_consumption(
    wealth: FloatArray, income: FloatArray, last_income: FloatArray, rate: float, buffer: float
) -> FloatArray:
    """Share of wealth and this month's income spent by the buffer-stock rule of the CATS model.

    EconAgent's second composite rule (`consumption_cats`, Li et al. 2024's code, after Delli Gatti et al. 2011):
    with income growth g = income / last_income - 1 and target buffer h1 = h / (1 + r) months of income,
    spending = (1 + (wealth / last_income - h1 - h1 g) / (1 + g)) x income: all but the buffer, nothing without
    income this month.
    """
    h1 = buffer / (1.0 + rate)
    last = last_income + 1e-8
    g = income / last - 1.0
    c = 1.0 + (wealth / last - h1 - h1 * g) / (1.0 + g + 1e-8)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = c * income / (wealth + income + 1e-8)
    return np.asarray(np.nan_to_num(share, nan=0.0, posinf=1.0, neginf=0.0), dtype=float)


def gini(values: FloatArray) -> float:
    """Gini coefficient of non-negative values (negative ones count as 0); 0 for empty or all-zero input."""
    x = np.sort(np.maximum(np.asarray(values, dtype=float), 0.0))
    n = x.size
    total = x.sum()
    if n == 0 or total <= 0:
        return 0.0
    ranks = np.arange(1, n + 1)
    return float((2.0 * np.sum(ranks * x) / (n * total)) - (n + 1.0) / n)


@dataclass(frozen=True)
class Clearing:
    """Result of one goods market: who got what, what was left, how many went without."""

    served: FloatArray
    demand: float
    sold: float
    shortage: float
    rationed: int
    phi: float


def clear_goods(demand: FloatArray, stock: float, rng: np.random.Generator) -> Clearing:
    """Random-order rationing of one good (EconAgent serves households in random order)."""
    order = rng.permutation(demand.size)
    served = ration(demand, stock, order)
    total = float(demand.sum())
    sold = float(served.sum())
    rationed = int(np.count_nonzero(served < demand - 1e-12))
    return Clearing(served, total, sold, max(total - sold, 0.0), rationed, demand_gap(total, stock))
