"""Experience effects people show, measured from the run files (the `experience.` metrics):

- risky share after a crash against before (Malmendier & Nagel 2011: households that live through a stock-market
  crash take less risk for years afterwards); the experiment's paired difference against an ablation is the
  difference-in-differences;
- the loss in the second of two like shocks relative to the first (an agent that remembers loses less), in real
  wealth with the risky holdings at market prices;
- the disposition effect (Odean 1998): the share of gains realised minus the share of losses realised, over the
  months in which a household sold;
- inflation expectations against the inflation each cohort lived through (Malmendier & Nagel 2016;
  `lived_inflation`).

Risky holdings (stocks and steel; bonds are not risky) are the agents table's `risky_value`; older run folders
without it rebuild them from the households' fills (`market.order_filled`), valued at each month's last traded
price (the assets table).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.lived_inflation import lived_inflation_metrics
from psychoagent.eval.rundata import RunData

BEFORE, AFTER_FROM, AFTER_TO = 12, 12, 36
"""Risky share: the year before a crash against months 12-35 after it (the years-long effect, not the fall itself)."""
LOSS_WINDOW, LOSS_BASE = 24, 6
"""A shock's loss: the lowest mean real wealth within 24 months of its start against the mean of the 6 months before."""
SAFE = ("bond",)
"""Instruments that are not risky."""
NAN = float("nan")


def adverse(shock: dict[str, Any]) -> bool:
    """Whether a scenario shock hurts: demand or supply falls, the rate rises, taxes rise, stocks crash."""
    kind = shock.get("kind")
    if kind == "market_crash":
        return True
    if kind in ("demand_shock", "supply_shock"):
        return float(shock.get("factor", 1.0)) < 1.0
    if kind == "rate_shock":
        return float(shock.get("delta", 0.0)) > 0.0
    if kind == "policy_change":
        return float(shock.get("tax_scale", 1.0)) > 1.0
    return False


def crashes(run: RunData) -> list[tuple[int, str]]:
    """(start month, kind) of the scenario's adverse shocks, one per start month (the first kind listed there)."""
    scen = run.config.get("scenario") or {}
    found: dict[int, str] = {}
    for s in scen.get("shocks", []) if isinstance(scen, dict) else []:
        if isinstance(s, dict) and "start" in s and adverse(s):
            found.setdefault(int(s["start"]), str(s.get("kind")))
    return sorted(found.items())


def month_prices(run: RunData) -> pd.DataFrame | None:
    """Month x instrument: the last traded price of each month (None without the assets table)."""
    a = run.assets
    if a is None or not {"tick", "asset", "price"} <= set(a.columns):
        return None
    return a.groupby(["tick", "asset"])["price"].last().unstack().sort_index().ffill()


def positions(run: RunData) -> dict[tuple[int, str], dict[int, float]]:
    """(household, instrument) -> {month: quantity held at the month's end} from the fills (risky only). Fills
    name households by index, the agents table by id: households are keyed by their agents-table id."""
    ids = {i: a for a, i in run.household_index().items()}
    held: dict[tuple[int, str], dict[int, float]] = defaultdict(dict)
    running: dict[tuple[int, str], float] = defaultdict(float)
    for e in run.events("market.order_filled"):
        p = e.get("payload") or {}
        inst = str(p.get("instrument", ""))
        if inst in SAFE or "agent_id" not in p:
            continue
        key = (ids.get(int(p["agent_id"]), int(p["agent_id"])), inst)
        running[key] += float(p.get("quantity", 0.0)) * (1.0 if p.get("side") == "BUY" else -1.0)
        held[key][int(e.get("tick", p.get("tick", 0)))] = running[key]
    return held


def risky_share(run: RunData) -> pd.DataFrame | None:
    """Month x household: risky holdings over money plus risky holdings, in [0, 1] (None without the files it
    needs). From the agents table's `risky_value` where the run has it (every holding, the opening's included);
    in older run folders, rebuilt from the fills and valued at each month's last price (the opening's unseen)."""
    wcol = run.wealth_column
    if wcol is None:
        return None
    wealth = run.panel(wcol)
    assert wealth is not None
    value = run.panel("risky_value")
    if value is None:
        prices = month_prices(run)
        if prices is None:
            return None
        value = pd.DataFrame(0.0, index=wealth.index, columns=wealth.columns)
        for (agent, inst), by_month in positions(run).items():
            if agent not in value.columns or inst not in prices.columns:
                continue
            qty = pd.Series(by_month).reindex(value.index).ffill().fillna(0.0).clip(lower=0.0)
            value[agent] += qty * prices[inst].reindex(value.index).ffill().fillna(0.0)
    total = wealth + value
    return (value / total.where(total > 0)).clip(0.0, 1.0)


def risky_share_change(run: RunData) -> float:
    """Mean over crashes of the mean risky share in months 12-35 after the start minus the year before (NaN when no
    crash has a year before and three after it)."""
    share = risky_share(run)
    if share is None:
        return NAN
    mean = share.mean(axis=1)
    last = int(mean.index.max()) if len(mean) else 0
    changes = []
    for start, _ in crashes(run):
        if start - BEFORE < 1 or start + AFTER_TO - 1 > last:
            continue
        before = mean.loc[start - BEFORE : start - 1].mean()
        after = mean.loc[start + AFTER_FROM : start + AFTER_TO - 1].mean()
        changes.append(float(after - before))
    return float(np.mean(changes)) if changes else NAN


def shock_losses(run: RunData) -> list[tuple[str, float]]:
    """(kind, loss) per crash: 1 - the lowest mean real wealth within 24 months of the start over the 6 months before.
    Wealth counts the risky holdings at market prices where the run records them (`risky_value`): a market crash
    takes its loss there, not in money."""
    wcol = run.wealth_column
    if wcol is None or "price_level" not in run.macro.columns:
        return []
    wealth = run.panel(wcol)
    assert wealth is not None
    risky = run.panel("risky_value")
    if risky is not None:
        wealth = wealth.add(risky.reindex_like(wealth).fillna(0.0))
    price = run.macro.set_index("tick")["price_level"].reindex(wealth.index)
    real = wealth.mean(axis=1) / price
    out = []
    for start, kind in crashes(run):
        base = real.loc[start - LOSS_BASE : start - 1].mean()
        low = real.loc[start : start + LOSS_WINDOW - 1].min()
        if math.isfinite(base) and base > 0 and math.isfinite(low):
            out.append((kind, float(max(0.0, 1.0 - low / base))))
    return out


def second_loss_ratio(run: RunData) -> float:
    """The second like shock's loss over the first's (NaN without two shocks of one kind or a first loss)."""
    losses = shock_losses(run)
    for kind in dict.fromkeys(k for k, _ in losses):
        same = [loss for k, loss in losses if k == kind]
        if len(same) >= 2 and same[0] > 0:
            return same[1] / same[0]
    return NAN


def disposition(run: RunData) -> float:
    """Odean's PGR - PLR over household-months with a sale: realised gains / (realised + paper gains) minus the same
    for losses, a holding's gain or loss taken against its average purchase price (NaN without sales)."""
    prices = month_prices(run)
    if prices is None:
        return NAN
    cost: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0.0])  # quantity, cost
    sold: dict[tuple[int, int], set[str]] = defaultdict(set)
    start_of: dict[tuple[int, int], dict[str, float]] = {}
    counts = {"rg": 0, "pg": 0, "rl": 0, "pl": 0}
    fills = sorted(run.events("market.order_filled"), key=lambda e: int(e.get("tick", 0)))
    month = None
    for e in fills:
        p = e.get("payload") or {}
        inst, tick = str(p.get("instrument", "")), int(e.get("tick", 0))
        if inst in SAFE or "agent_id" not in p:
            continue
        if tick != month:
            _count(sold, start_of, prices, counts)
            sold, start_of, month = defaultdict(set), {}, tick
        agent, qty, px = int(p["agent_id"]), float(p.get("quantity", 0.0)), float(p.get("price", 0.0))
        if (agent, tick) not in start_of:
            start_of[(agent, tick)] = {i: c / q for (a, i), (q, c) in cost.items() if a == agent and q > 1e-9}
        book = cost[(agent, inst)]
        if p.get("side") == "BUY":
            book[0], book[1] = book[0] + qty, book[1] + qty * px
        else:
            sold[(agent, tick)].add(inst)
            avg = book[1] / book[0] if book[0] > 1e-9 else px
            book[0] = max(0.0, book[0] - qty)
            book[1] = book[0] * avg
    _count(sold, start_of, prices, counts)
    gains, losses = counts["rg"] + counts["pg"], counts["rl"] + counts["pl"]
    if not gains or not losses:
        return NAN
    return counts["rg"] / gains - counts["rl"] / losses


def _count(
    sold: dict[tuple[int, int], set[str]],
    start_of: dict[tuple[int, int], dict[str, float]],
    prices: pd.DataFrame,
    counts: dict[str, int],
) -> None:
    """Add one month's realised and paper gains and losses for the households that sold in it."""
    for (agent, tick), instruments in sold.items():
        for inst, avg in start_of.get((agent, tick), {}).items():
            if inst not in prices.columns or tick not in prices.index:
                continue
            gain = float(prices.at[tick, inst]) > avg
            realised = inst in instruments
            counts[("r" if realised else "p") + ("g" if gain else "l")] += 1


def experience_metrics(run: RunData) -> dict[str, float]:
    """The `experience.` family (NaN where the run lacks what a metric needs)."""
    return {
        "experience.risky_share_change_after_crash": risky_share_change(run),
        "experience.second_shock_loss_ratio": second_loss_ratio(run),
        "experience.disposition": disposition(run),
        **lived_inflation_metrics(run),
    }
