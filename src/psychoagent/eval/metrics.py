"""Every metric of a run directory in one flat dict, written to metrics.json.

Groups (key prefixes): the EconAI seed's five (adaptability, robustness, persona_consistency, diversity, social),
macro regularities (macro.phillips_*, macro.okun_*), stylized facts of asset returns (stylized.*), welfare
(welfare.*: Gini, AI Economist equality x productivity) and cognition counts (cognition.*: memories, persona
updates, guardrail rejections and vetoes). A metric whose data the run does not have is null in `metrics` and its
group is listed in `not_available` with the reason.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.eval.behaviour import behaviour_metrics
from psychoagent.eval.experience import experience_metrics
from psychoagent.eval.macro import okun_law, phillips_curve
from psychoagent.eval.rundata import RunData
from psychoagent.eval.social import social_metrics
from psychoagent.eval.stats import NAN, equality, gini
from psychoagent.eval.stylized import stylized_facts
from psychoagent.events import EventType

HIGHER_IS_BETTER = {
    "adaptability.recovery_ticks": False, "adaptability.agent_recovered_share": True,
    "adaptability.agent_median_recovery_ticks": False, "adaptability.income_recovery_ticks": False,
    "adaptability.income_agent_recovered_share": True, "adaptability.income_agent_median_recovery_ticks": False,
    "robustness.sharpe_median_agent": True, "robustness.volatility_median_agent": False,
    "robustness.sharpe_mean_wealth": True, "robustness.volatility_mean_wealth": False,
    "robustness.max_drawdown_mean_wealth": False, "persona_consistency.score": True,
    "diversity.entropy_bits": True, "diversity.distinct": True, "diversity.novel_share": True,
    "social.cooperation_rate": True, "social.broken_rate": False,
    "macro.mean_unemployment": False,
    "welfare.gini": False, "welfare.equality": True, "welfare.productivity": True, "welfare.social_welfare": True,
    "cognition.guardrail_vetoed_per_agent_tick": False, "experience.second_shock_loss_ratio": False,
}  # fmt: skip
"""Which direction counts as better for the comparison table (True: higher; absent: no judgement). The Phillips and
Okun correlations have none: a more negative r is closer to the textbook relation, not a better economy."""

COGNITION_EVENTS = {
    "memories": (EventType.MEMORY_FORMED,), "persona_updates": (EventType.PERSONA_EVOLVED,),
    "guardrail_rejected": (EventType.GUARDRAIL_REJECTED,), "guardrail_vetoed": (EventType.GUARDRAIL_VETOED,),
}  # fmt: skip


def macro_metrics(run: RunData) -> dict[str, float]:
    """Phillips curve and Okun's law on annual data (r, p, n) and mean unemployment, inflation and real GDP."""
    macro = run.macro
    out: dict[str, float] = {}
    for name, c in (("phillips", phillips_curve(macro)), ("okun", okun_law(macro))):
        out.update({f"macro.{name}_r": c.r, f"macro.{name}_p": c.p, f"macro.{name}_n": float(c.n)})
    for col, key in (("unemployment", "mean_unemployment"), ("real_gdp", "mean_real_gdp")):
        if col in macro.columns:
            out[f"macro.{key}"] = float(macro[col].mean())
    if "price_level" in macro.columns and len(macro) > 1:
        p = macro["price_level"].to_numpy(dtype=float)
        years = (len(p) - 1) / 12.0
        out["macro.annual_inflation"] = float((p[-1] / p[0]) ** (1.0 / years) - 1.0) if p[0] > 0 else NAN
    return out


def welfare_metrics(run: RunData) -> dict[str, float]:
    """Final-tick Gini of wealth, AI Economist equality (1 - n/(n-1) Gini), productivity = mean real wealth per
    household (wealth / price level, so variants with different inflation compare), social welfare = product."""
    wcol = run.wealth_column
    if wcol is None:
        if "gini" in run.macro.columns:
            return {"welfare.gini": float(run.macro["gini"].iloc[-1])}
        return {}
    agents = run.agent_frame(wcol)
    assert agents is not None
    last = agents[agents["tick"] == agents["tick"].max()]
    w = last[wcol].to_numpy(dtype=float)
    price = float(run.macro["price_level"].iloc[-1]) if "price_level" in run.macro.columns else 1.0
    eq = equality(w)
    prod = float(np.mean(w) / price) if w.size and price > 0 else NAN
    return {"welfare.gini": gini(w), "welfare.equality": eq, "welfare.productivity": prod,
            "welfare.social_welfare": eq * prod}  # fmt: skip


def cognition_metrics(run: RunData) -> dict[str, float]:
    """Cognition events per agent-tick: memories formed (a memory.formed event's `count` when given), persona
    updates, guardrail rejections and vetoes."""
    counts = run.event_counts
    if not any(counts.get(t, 0) for types in COGNITION_EVENTS.values() for t in types):
        return {}
    agent_ticks = max(int(run.config.get("agents", 1)) * run.ticks, 1)
    out = {}
    for key, types in COGNITION_EVENTS.items():
        if key == "memories":
            n = sum(_count(e) for t in types for e in run.events(t, keys=("count",)))
        else:
            n = sum(counts.get(t, 0) for t in types)
        out[f"cognition.{key}_per_agent_tick"] = n / agent_ticks
    return out


def _count(event: dict[str, Any]) -> float:
    c = (event.get("payload") or {}).get("count", 1)
    return float(c) if isinstance(c, int | float) else 1.0


NEEDS: dict[str, tuple[str, str]] = {
    "adaptability": ("agents", "a scenario with shocks (regime changes)"),
    "robustness": ("agents", "wealth over at least two months"),
    "persona_consistency": ("agents", "persona traits in the agents table"),
    "diversity": ("agents", "strategies in the agents table"), "social": ("events", "negotiation.* events"),
    "stylized": ("assets", "traded asset prices in the assets table"), "welfare": ("agents", "wealth in the agents table"),
    "cognition": ("events", "memory.formed / persona.evolved / guardrail.* events"),
    "macro": ("macro", "at least 3 full years for the annual correlations"),
    "experience": ("events", "an adverse shock with a year before it and three after, trades, two like shocks, or "
                   "households that expect inflation"),
}  # fmt: skip
"""Per metric group: the run table it reads and what else it needs; `why_missing` says which one is lacking."""
GROUPS = {group: f"needs {what}" for group, (_, what) in NEEDS.items()}
"""Per metric group, what it needs besides its file (the report's 'n/a, because it ...' for a missing plot)."""


def why_missing(group: str, folder: str | Path) -> str:
    """Why a metric group has no value in the run at `folder`: its file is missing, or what it needs besides."""
    table, what = NEEDS[group]
    run = RunData(Path(folder))
    return f"needs {run.file(table).name}" if not run.has(table) else f"needs {what}"


def compute_metrics(path: str | Path) -> dict[str, Any]:
    """All metrics of the run at `path`: {'metrics': flat values (None = n/a), 'not_available': {group: why},
    'details': per-asset stylized facts and annual points, 'run': {seed, policy, scenario, agents, ticks},
    'llm' (runs that called a model): calls, fallbacks, repairs and retries per purpose}."""
    run = RunData.open(path)
    flat: dict[str, float] = {}
    flat.update(behaviour_metrics(run))
    agent_ticks = int(run.config.get("agents", 0)) * run.ticks or None
    flat.update(
        {f"social.{k}": v for k, v in social_metrics(run.events(prefix="negotiation."), agent_ticks).items()}
    )
    styl, per_asset = stylized_facts(run.assets)
    flat.update(styl)
    flat.update(macro_metrics(run))
    flat.update(welfare_metrics(run))
    flat.update(cognition_metrics(run))
    flat.update(experience_metrics(run))
    metrics = {k: (float(v) if v is not None and math.isfinite(v) else None) for k, v in sorted(flat.items())}
    missing = {}
    for group in NEEDS:
        vals = [v for k, v in metrics.items() if k.startswith(group + ".")]
        if not vals or all(v is None for v in vals):
            missing[group] = why_missing(group, path)
    scen = run.config.get("scenario") or {}
    info: dict[str, Any] = {k: run.config.get(k) for k in ("seed", "policy", "agents", "ticks", "variant")}
    info["scenario"] = scen.get("name") if isinstance(scen, dict) else scen
    out = {
        "run": info,
        "metrics": metrics,
        "not_available": missing,
        "details": _clean({"assets": per_asset}),
    }
    usage = Path(path) / "llm_usage.json"
    if usage.is_file():  # model calls, fallbacks, repairs and retries per purpose
        from psychoagent.llm.accounting import usage_summary

        out["llm"] = usage_summary(json.loads(usage.read_text(encoding="utf-8")))
    return out


def _clean(value: Any) -> Any:
    """NaN and inf -> None (valid JSON), recursively through dicts and lists; numpy scalars -> Python."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_metrics(path: str | Path) -> dict[str, Any]:
    """Compute the metrics of a run and write them to `path`/metrics.json; returns them."""
    result = compute_metrics(path)
    text = json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n"
    (Path(path) / "metrics.json").write_text(text, encoding="utf-8")
    return result


def load_metrics(path: str | Path) -> dict[str, Any]:
    """metrics.json of a run, computed and written first when absent."""
    file = Path(path) / "metrics.json"
    if file.is_file():
        data = json.loads(file.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            return data
    return write_metrics(path)
