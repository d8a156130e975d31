"""What every metric in metrics.json means: a readable name, a definition, its unit, which direction is better and
the range of values it can take (used to clip confidence intervals to what is possible)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from psychoagent.eval.metrics import HIGHER_IS_BETTER


@dataclass(frozen=True)
class Term:
    """One metric as a reader needs it."""

    name: str
    definition: str
    unit: str = ""
    low: float = -math.inf
    high: float = math.inf

    def better(self, key: str) -> str:
        """'higher', 'lower' or '' (no judgement), as the comparison tables use it."""
        if key not in HIGHER_IS_BETTER:
            return ""
        return "higher" if HIGHER_IS_BETTER[key] else "lower"


SHARE = (0.0, 1.0)
NONNEG = (0.0, math.inf)
CORR = (-1.0, 1.0)
# excess kurtosis is at least -2 (a two-point distribution); the 5 and 20-period ones share the bound

_MONTHS = "months"
_REC = "until real wealth (wealth / price level) is back at its level before a shock that lowered it"

TERMS: dict[str, Term] = {
    "adaptability.recovery_ticks": Term("recovery time of mean wealth", f"months {_REC}, for mean wealth", _MONTHS, *NONNEG),
    "adaptability.agent_recovered_share": Term("households recovered", "share of households whose real wealth regained its pre-shock level before the next shock", "share 0-1", *SHARE),
    "adaptability.agent_median_recovery_ticks": Term("median household recovery time", f"median over households of the months {_REC}", _MONTHS, *NONNEG),
    "adaptability.income_recovery_ticks": Term("recovery time of mean income", "months until mean real income (6-month mean) regains its pre-shock level", _MONTHS, *NONNEG),
    "adaptability.income_agent_recovered_share": Term("households whose income recovered", "share of households whose real income regained its pre-shock level", "share 0-1", *SHARE),
    "adaptability.income_agent_median_recovery_ticks": Term("median income recovery time", "median over households of the months until real income recovered", _MONTHS, *NONNEG),
    "robustness.sharpe_median_agent": Term("Sharpe ratio (median household)", "annualised mean monthly wealth return above the deposit rate, divided by its volatility; median over households", "ratio"),
    "robustness.volatility_median_agent": Term("wealth volatility (median household)", "annualised standard deviation of monthly wealth returns; median over households", "per year", *NONNEG),
    "robustness.sharpe_mean_wealth": Term("Sharpe ratio of mean wealth", "annualised excess return of mean wealth over its volatility", "ratio"),
    "robustness.volatility_mean_wealth": Term("volatility of mean wealth", "annualised standard deviation of monthly returns of mean wealth", "per year", *NONNEG),
    "robustness.max_drawdown_mean_wealth": Term("largest fall of mean wealth", "largest fall of mean wealth from a previous peak, as a share of that peak", "share 0-1", *SHARE),
    "persona_consistency.consume_share_r2": Term("persona explains spending", "adjusted R² of each month's spending shares regressed on the persona traits, averaged over months", "R²", -math.inf, 1.0),
    "persona_consistency.worked_r2": Term("persona explains working", "adjusted R² of working (yes/no) regressed on the persona traits, averaged over months", "R²", -math.inf, 1.0),
    "persona_consistency.risky_r2": Term("persona explains stock buying", "adjusted R² of stock purchases / wealth regressed on the persona traits", "R²", -math.inf, 1.0),
    "persona_consistency.score": Term("persona consistency", "mean of the spending and working R²: how much behaviour follows from personality", "R²", -math.inf, 1.0),
    "diversity.entropy_bits": Term("strategy entropy", "entropy of the households' yearly strategies (binned work rate x spending share)", "bits", *NONNEG),
    "diversity.distinct": Term("distinct strategies", "number of different yearly strategies in use, averaged over years", "count", *NONNEG),
    "diversity.novel_share": Term("new strategies", "share of household-years using a strategy nobody used before", "share 0-1", *SHARE),
    "diversity.new_strategies": Term("strategies invented", "number of strategies first used after the first year", "count", *NONNEG),
    "social.cooperation_rate": Term("deals agreed", "agreed negotiations / closed negotiations", "share 0-1", *SHARE),
    "social.broken_rate": Term("talks broken", "broken negotiations / closed negotiations", "share 0-1", *SHARE),
    "social.negotiations": Term("negotiations", "negotiations opened in the whole run", "count", *NONNEG),
    "social.negotiations_per_100_agent_ticks": Term("negotiation frequency", "negotiations per 100 household-months", "per 100 household-months", *NONNEG),
    "social.offers_per_negotiation": Term("offers per negotiation", "offers exchanged before a negotiation closed", "count", *NONNEG),
    "social.reputation_dispersion": Term("spread of reputations", "standard deviation across households of their agreement rate", "share 0-1", *NONNEG),
    "macro.phillips_r": Term("Phillips curve r", "correlation of annual unemployment with annual wage inflation (negative = the textbook curve)", "r", *CORR),
    "macro.phillips_p": Term("Phillips curve p", "p-value of the Phillips correlation", "p", *SHARE),
    "macro.phillips_n": Term("Phillips curve points", "number of years in the Phillips correlation", "years", *NONNEG),
    "macro.okun_r": Term("Okun's law r", "correlation of the annual change of unemployment with real GDP growth (negative = Okun's law)", "r", *CORR),
    "macro.okun_p": Term("Okun's law p", "p-value of the Okun correlation", "p", *SHARE),
    "macro.okun_n": Term("Okun's law points", "number of years in the Okun correlation", "years", *NONNEG),
    "macro.mean_unemployment": Term("mean unemployment", "unemployment rate averaged over all months", "share 0-1", *SHARE),
    "macro.annual_inflation": Term("inflation per year", "average yearly growth of the price level from the first to the last month", "per year"),
    "macro.mean_real_gdp": Term("mean real GDP", "goods produced per month at start prices, averaged over months", "goods per month", *NONNEG),
    "stylized.acf_r1": Term("return autocorrelation", "lag-1 autocorrelation of log returns (real markets: near 0)", "r", *CORR),
    "stylized.acf_abs_mean_1_10": Term("volatility clustering", "mean autocorrelation of |log return| at lags 1-10 (real markets: clearly positive)", "r", *CORR),
    "stylized.acf_r1_inside_band": Term("returns unpredictable", "1 when the lag-1 autocorrelation lies within ±2/√T", "yes = 1", *SHARE),
    "stylized.kurtosis": Term("fat tails", "excess kurtosis of log returns (normal = 0; real markets: well above 0)", "excess kurtosis", -2.0),
    "stylized.kurtosis_agg5": Term("fat tails, 5-period returns", "excess kurtosis of returns summed over 5 periods", "excess kurtosis", -2.0),
    "stylized.kurtosis_agg20": Term("fat tails, 20-period returns", "excess kurtosis of returns summed over 20 periods", "excess kurtosis", -2.0),
    "experience.risky_share_change_after_crash": Term("risky share after a crash", "mean share of wealth in risky assets in months 12-35 after an adverse shock minus the year before (Malmendier & Nagel 2011: negative)", "share points", *CORR),
    "experience.second_shock_loss_ratio": Term("second shock's loss against the first", "fall of mean real wealth (money and risky holdings at market prices) after the second of two like shocks over the fall after the first (below 1: lost less the second time)", "ratio", *NONNEG),
    "experience.inflation_experience_slope": Term("expectations on lived inflation", "slope of households' expected inflation on the mean inflation they lived through since joining, across households within a month (Malmendier & Nagel 2016: positive; 0 when all read the published figure)", "points per point", -math.inf, math.inf),
    "experience.inflation_cohort_gap": Term("earliest against latest cohort", "mean expected inflation of the earliest cohort minus the latest, over the months both expect", "share points", -math.inf, math.inf),
    "experience.disposition": Term("disposition effect", "share of gains realised minus share of losses realised in months with a sale (Odean 1998: positive)", "difference of shares", *CORR),
    "stylized.kurtosis_change": Term("tails thin out over longer periods", "kurtosis of 20-period minus 1-period returns; real markets: negative (aggregational Gaussianity)", "excess kurtosis"),
    "stylized.volume_abs_return_corr": Term("volume follows volatility", "correlation of trading volume with |log return|", "r", *CORR),
    "stylized.leverage": Term("leverage effect", "correlation of today's return with future squared returns (real markets: negative)", "r", *CORR),
    "stylized.acf_month1": Term("monthly return autocorrelation", "lag-1 autocorrelation of close-to-close monthly log returns (real markets: near 0; the report's table asks |r| <= 0.1)", "r", *CORR),
    "stylized.traded_share": Term("auctions that trade", "share of call auctions in which anything changed hands", "share 0-1", *SHARE),
    "stylized.volatility": Term("return volatility", "standard deviation of log returns per trading period", "per period", *NONNEG),
    "welfare.gini": Term("wealth inequality (Gini)", "Gini coefficient of household wealth in the last month (0 equal, 1 one owns all)", "Gini 0-1", *SHARE),
    "welfare.equality": Term("equality", "AI Economist equality 1 - n/(n-1) x Gini", "index 0-1", *SHARE),
    "welfare.productivity": Term("productivity", "mean real wealth per household in the last month (wealth / price level)", "money at start prices", *NONNEG),
    "welfare.social_welfare": Term("social welfare", "equality x productivity", "money at start prices", *NONNEG),
    "cognition.memories_per_agent_tick": Term("memories formed", "memories stored per household per month", "per household-month", *NONNEG),
    "cognition.persona_updates_per_agent_tick": Term("persona updates", "persona changes from prediction errors per household per month", "per household-month", *NONNEG),
    "cognition.guardrail_rejected_per_agent_tick": Term("orders rejected", "orders stopped by a guardrail rule per household per month", "per household-month", *NONNEG),
    "cognition.guardrail_vetoed_per_agent_tick": Term("orders vetoed", "orders vetoed by the look-ahead sandbox per household per month", "per household-month", *NONNEG),
}  # fmt: skip

for _k in ("entropy_bits", "distinct", "novel_share", "new_strategies"):
    _base = TERMS[f"diversity.{_k}"]
    TERMS[f"diversity.with_trading_{_k}"] = Term(
        f"{_base.name}, trading included", f"{_base.definition}, with the share of wealth in stocks as a third "
        "dimension of the strategy", _base.unit, _base.low, _base.high
    )  # fmt: skip


def term(key: str) -> Term:
    """The glossary entry of a metric key; an unknown key gets its own name and no definition."""
    found = TERMS.get(key)
    if found is not None:
        return found
    return Term(key.split(".", 1)[-1].replace("_", " "), "(no definition recorded)")


def clip(key: str, value: float) -> float:
    """A value (e.g. an interval end) clipped to the range the metric can take."""
    t = term(key)
    return min(max(value, t.low), t.high) if math.isfinite(value) else value
