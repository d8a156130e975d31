"""Four of the EconAI seed's criteria (section 4.4) over per-agent tables: adaptability, robustness, persona
consistency, and strategy diversity and novelty. (The fifth, social emergence, lives in `social.py`.)

Inputs are tick x agent frames (rows = ticks, columns = agents) and macro series, so every function is pure and
testable on hand-made data. `behaviour_metrics(run)` applies them to a run directory.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.eval.stats import NAN, entropy_bits, max_drawdown, sharpe, volatility
from psychoagent.events import EventType

RISKY_COLUMNS = ("risky_share", "stock_share", "invest_share", "portfolio_share")
"""Agents-table columns read as the share of wealth held in risky assets (first one present)."""
HOLDING_COLUMNS = ("portfolio_value", "holdings_value", "stock_value", "asset_value")
"""Else: a value of risky holdings, divided by wealth (else stock purchases from market.order_filled events)."""
TRAITS = (
    "risk_preference", "optimism", "learning_rate", "social_tendency",
    "alloc_consume", "alloc_save", "alloc_invest", "alloc_rnd",
)  # fmt: skip
"""Persona vector columns of the agents table (the ones present are used)."""
BEHAVIOURS = ("consume_share", "worked", "risky")
"""Behaviour features explained by the persona vector: spending share, working, share held in risky assets."""
CORE_BEHAVIOURS = BEHAVIOURS[:2]
"""Behaviours every policy has; `score` and the diversity metrics use only these so variants compare (trading
adds its own `risky_r2` and `with_trading_*` values where the run records it)."""
INCOME_WINDOW = 6
"""Months in the trailing mean of income used for the profitability version of adaptability (a month without
work is not a lost business)."""
STRATEGY_BINS = 5
"""Each action feature (a share in [0, 1]) is cut into this many equal bins to name a strategy."""


def recovery_ticks(levels: pd.Series, start: int, end: int | None = None) -> tuple[float, bool]:
    """Ticks from `start` until `levels` (indexed by tick) is back at its value just before `start`.

    0 when it never falls below that value; censored at `end` (exclusive; default the end of the series) and
    returned with False when it does not recover by then; NaN when there is no tick before `start`.
    """
    s = levels.dropna().sort_index()
    before = s[s.index < start]
    after = s[(s.index >= start) & (s.index < end)] if end is not None else s[s.index >= start]
    if before.empty or after.empty:
        return NAN, False
    pre = float(before.iloc[-1])
    if bool((after >= pre).all()):
        return 0.0, True
    trough = after.idxmin()
    back = after[(after.index > trough) & (after >= pre)]
    if back.empty:
        return float(after.index[-1] - start + 1), False
    return float(back.index[0] - start), True


def adaptability(wealth: pd.DataFrame, price: pd.Series, shocks: Sequence[int]) -> dict[str, float]:
    """How fast real wealth recovers after the regime changes that hurt it (averaged over those shocks).

    recovery_ticks: ticks until mean real wealth (wealth / price level) regains its pre-shock level (censored at
    the end of the run); agent_recovered_share: share of agents whose own real wealth regains it by the end;
    agent_median_recovery_ticks: median over agents (censored values count as the run's remaining length).
    Each shock is followed until the next one starts. A shock after which mean real wealth does not fall below
    its pre-shock level (a boom) has nothing to recover from and is left out; when every shock is like that,
    recovery takes 0 ticks.
    """
    keys = ("recovery_ticks", "agent_recovered_share", "agent_median_recovery_ticks")
    if wealth.empty or not shocks:
        return dict.fromkeys(keys, NAN)
    real = wealth.div(price.reindex(wealth.index), axis=0)
    mean = real.mean(axis=1)
    starts = sorted(set(shocks))
    ends: dict[int, int | None] = {s: e for s, e in zip(starts, [*starts[1:], None], strict=True)}
    timed = [(s, recovery_ticks(mean, s, ends[s])[0]) for s in starts]
    timed = [(s, t) for s, t in timed if np.isfinite(t)]
    if not timed:
        return dict.fromkeys(keys, NAN)
    hurt = [s for s, t in timed if t > 0] or [s for s, _ in timed]
    agg, shares, medians = [], [], []
    for start in hurt:
        agg.append(dict(timed)[start])
        per = [recovery_ticks(real[c], start, ends[start]) for c in real.columns]
        shares.append(float(np.mean([ok for _, ok in per])))
        medians.append(_nanmedian([v for v, _ in per]))
    return dict(zip(keys, (float(np.mean(agg)), float(np.mean(shares)), _nanmean(medians)), strict=True))


def wealth_returns(wealth: pd.DataFrame, floor_share: float = 0.01) -> pd.DataFrame:
    """Per-period returns W_t / W_{t-1} - 1 per agent; NaN where W_{t-1} is below `floor_share` x the median
    first-tick wealth (a return on almost nothing is not a return)."""
    floor = floor_share * float(np.nanmedian(wealth.iloc[0].to_numpy())) if len(wealth) else 0.0
    prev = wealth.shift(1)
    return (wealth / prev.where(prev > max(floor, 1e-12)) - 1.0).iloc[1:]


def robustness(
    wealth: pd.DataFrame, rate: pd.Series | None = None, periods_per_year: int = 12
) -> dict[str, float]:
    """Sharpe ratio and volatility of wealth returns (annualised), per agent (median) and of mean wealth.

    `rate` is the annual policy/deposit rate per tick, the risk-free return (rate / periods_per_year).
    """
    rets = wealth_returns(wealth)
    rf = (rate.reindex(rets.index).fillna(0.0) / periods_per_year) if rate is not None else 0.0
    per_sharpe = [sharpe(rets[c], rf, periods_per_year) for c in rets.columns]
    per_vol = [volatility(rets[c], periods_per_year) for c in rets.columns]
    mean_w = wealth.mean(axis=1)
    agg = mean_w.pct_change().iloc[1:]
    return {
        "sharpe_median_agent": _nanmedian(per_sharpe),
        "volatility_median_agent": _nanmedian(per_vol),
        "sharpe_mean_wealth": sharpe(agg, rf, periods_per_year),
        "volatility_mean_wealth": volatility(agg, periods_per_year),
        "max_drawdown_mean_wealth": max_drawdown(mean_w.to_numpy()),
    }


def _nanmedian(values: Sequence[float]) -> float:
    a = np.asarray(values, dtype=float)
    return float(np.median(a[np.isfinite(a)])) if np.isfinite(a).any() else NAN


def explained_share(traits: np.ndarray, behaviour: np.ndarray) -> float:
    """Adjusted R^2 of an OLS fit of one behaviour on the persona vector across agents (one tick).

    1 = behaviour is a linear function of the persona, about 0 = unrelated (can dip below 0 by chance);
    NaN with too few agents or no spread in the behaviour.
    """
    keep = np.isfinite(behaviour) & np.isfinite(traits).all(axis=1)
    x, y = traits[keep], behaviour[keep]
    if y.size < 3 or np.ptp(y) == 0:
        return NAN
    design = np.column_stack([np.ones(y.size), x])
    coef, _, rank, _ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ coef
    ss_res, ss_tot = float(resid @ resid), float(((y - y.mean()) ** 2).sum())
    dof = y.size - rank
    if dof <= 0:
        return NAN
    return float(1.0 - (ss_res / dof) / (ss_tot / (y.size - 1)))


def _nanmean(values: Sequence[float]) -> float:
    a = np.asarray(values, dtype=float)
    return float(np.mean(a[np.isfinite(a)])) if np.isfinite(a).any() else NAN


def persona_consistency(
    traits: dict[str, pd.DataFrame], behaviours: dict[str, pd.DataFrame]
) -> dict[str, float]:
    """How well the persona vector explains each behaviour: mean over ticks of the cross-sectional adjusted R^2
    ('<behaviour>_r2'), and the mean over CORE_BEHAVIOURS as `score` (over all given when none of them is
    there). Traits that never vary across agents are left out."""
    names = [t for t in sorted(traits) if float(np.nanstd(traits[t].to_numpy())) > 0]
    if not names or not behaviours:
        return {"score": NAN} if behaviours else {}
    out: dict[str, float] = {}
    for act, panel in sorted(behaviours.items()):
        per_tick = []
        for t in panel.index:
            if not all(t in traits[n].index for n in names):
                continue
            x = np.column_stack(
                [traits[n].loc[t].reindex(panel.columns).to_numpy(dtype=float) for n in names]
            )
            per_tick.append(explained_share(x, panel.loc[t].to_numpy(dtype=float)))
        out[f"{act}_r2"] = _nanmean(per_tick)
    core = [out[f"{b}_r2"] for b in CORE_BEHAVIOURS if f"{b}_r2" in out]
    out["score"] = _nanmean(core) if core else _nanmean(list(out.values()))
    return out


def strategy_labels(
    features: dict[str, pd.DataFrame], window: int = 12, bins: int = STRATEGY_BINS
) -> pd.DataFrame:
    """Each agent's strategy per window of ticks: the binned window means of its action features (shares in
    [0, 1]) joined into a label like '3-1'. Returns a window x agent frame of labels (None where undefined)."""
    names = sorted(features)
    if not names:
        return pd.DataFrame()
    parts = []
    for name in names:
        f = features[name]
        means = f.groupby((f.index.to_numpy() - f.index.min()) // window).mean()
        parts.append(np.clip(np.floor(means.to_numpy() * bins), 0, bins - 1))
    stacked = np.stack(parts, axis=-1)
    first = features[names[0]]
    idx = np.unique((first.index.to_numpy() - first.index.min()) // window)
    labels = [
        ["-".join(str(int(v)) for v in row) if np.isfinite(row).all() else None for row in stacked[w]]
        for w in range(stacked.shape[0])
    ]
    return pd.DataFrame(labels, index=idx, columns=first.columns)


def strategy_diversity(labels: pd.DataFrame) -> dict[str, float]:
    """Entropy (bits) and number of distinct strategies per window (means over windows), and novelty: the share
    of agent-windows after the first that use a strategy nobody used before, and how many such new ones appear."""
    keys = ("entropy_bits", "distinct", "novel_share", "new_strategies")
    if labels.empty:
        return dict.fromkeys(keys, NAN)
    ent, distinct = [], []
    seen: set[str] = set()
    novel = total = 0
    new: set[str] = set()
    for i, (_, row) in enumerate(labels.iterrows()):
        vals = [v for v in row.tolist() if v is not None]
        if not vals:
            continue
        counts = pd.Series(vals).value_counts()
        ent.append(entropy_bits(counts.to_numpy()))
        distinct.append(float(len(counts)))
        if i > 0:
            fresh = [v for v in vals if v not in seen]
            novel += len(fresh)
            total += len(vals)
            new.update(fresh)
        seen.update(vals)
    novel_share = novel / total if total else NAN
    new_count = float(len(new)) if total else NAN
    return dict(zip(keys, (_nanmean(ent), _nanmean(distinct), novel_share, new_count), strict=True))


def risky_panel(run: RunData) -> pd.DataFrame | None:
    """Share of wealth put into risky assets per tick and agent: a holdings column of the agents table when the run
    has one, else the value of stock purchases filled that tick (market.order_filled events) over wealth."""
    for col in RISKY_COLUMNS:
        p = run.panel(col)
        if p is not None:
            return p
    wcol = run.wealth_column
    w = run.panel(wcol) if wcol is not None else None
    if w is None:
        return None
    for col in HOLDING_COLUMNS:
        p = run.panel(col)
        if p is not None:
            return (p / w.where(w > 0)).clip(0.0, 1.0)
    return stock_purchases(run.events(EventType.ORDER_FILLED), w)


def stock_purchases(fills: Sequence[dict], wealth: pd.DataFrame) -> pd.DataFrame | None:
    """Value of filled stock purchases per tick over wealth (0 when an agent bought nothing), or None without
    fills. Events name households by index; the agents table lists them by id in creation (= index) order."""
    buys = [
        (e.get("tick"), p.get("agent_id"), float(p.get("price", 0.0)) * float(p.get("quantity", 0.0)))
        for e in fills
        if (p := e.get("payload") or {}).get("side") == "BUY"
        and str(p.get("instrument", "")).startswith("stock")
    ]
    if not fills:
        return None
    ids = sorted(wealth.columns)
    value = pd.DataFrame(0.0, index=wealth.index, columns=ids)
    for tick, idx, v in buys:
        if isinstance(idx, int) and 0 <= idx < len(ids) and tick in value.index:
            value.loc[tick, ids[idx]] += v
    return (value / wealth[ids].where(wealth[ids] > 0)).clip(0.0, 1.0)


def behaviour_metrics(run: RunData) -> dict[str, float]:
    """The four per-agent criteria of a run, flat keys like 'robustness.sharpe_median_agent'; {} without
    the agents table."""
    wcol = run.wealth_column
    if wcol is None:
        return {}
    wealth = run.panel(wcol)
    assert wealth is not None
    macro = run.macro.set_index("tick")
    out: dict[str, float] = {}
    price = macro["price_level"] if "price_level" in macro else pd.Series(1.0, index=wealth.index)
    for k, v in adaptability(wealth, price, run.shock_ticks()).items():
        out[f"adaptability.{k}"] = v
    income = run.panel("income")
    if income is not None:
        smooth = income.rolling(INCOME_WINDOW, min_periods=1).mean()
        for k, v in adaptability(smooth, price, run.shock_ticks()).items():
            out[f"adaptability.income_{k}"] = v
    rate = macro.get("interest_rate")
    for k, v in robustness(wealth, rate).items():
        out[f"robustness.{k}"] = v
    traits = {c: p for c in TRAITS if (p := run.panel(c)) is not None}
    acts = {c: p for c in BEHAVIOURS[:2] if (p := run.panel(c)) is not None}
    risky = risky_panel(run)
    if risky is not None:
        acts["risky"] = risky
    for k, v in persona_consistency(traits, acts).items():
        out[f"persona_consistency.{k}"] = v
    core = {k: acts[k] for k in CORE_BEHAVIOURS if k in acts}
    for k, v in strategy_diversity(strategy_labels(core)).items():
        out[f"diversity.{k}"] = v
    if "risky" in acts:
        with_trading = strategy_diversity(strategy_labels(acts))
        out["diversity.with_trading_entropy_bits"] = with_trading["entropy_bits"]
        out["diversity.with_trading_novel_share"] = with_trading["novel_share"]
    return out
