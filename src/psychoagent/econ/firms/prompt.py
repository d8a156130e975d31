"""Firm decisions from a language model: one prompt per firm, all firms of a quarter in one batch.

The prompt gives the persona in words, the quarter's reading, the firm's recalled memories (quoted data, never
instructions) and asks for `FirmDecision`. The offline model answers with the persona heuristic from the data
line (registered in `decision`); an answer that fails validation falls back to the heuristic for that firm.
"""

from __future__ import annotations

from typing import Any

from psychoagent.agent.cognition import tick_time
from psychoagent.econ.firms.archetypes import FIRM_ARCHETYPES
from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.firms.decision import FirmDecision, Perceived, heuristic_decision
from psychoagent.econ.firms.state import FirmState
from psychoagent.llm.offline import OfflineBackend, data_line
from psychoagent.quoting import DATA_NOTE, escape

SYSTEM = (
    "You run a firm in a simulated economy; stay true to your persona. Each quarter decide: production_target "
    "(share of capacity to produce, 0-1), expand (capacity to add with a new plant that takes {months} months to "
    "build and costs {cost:g} months of the revenue it adds; 0 for none), close (capacity to close), price_change "
    "and wage_change (relative, e.g. 0.02), rnd_share (share of spare cash for R&D), input_months (months of steel "
    "to buy ahead) and expected_growth (demand growth you expect next quarter). Plans beyond cash plus credit and "
    "prices below unit cost for a third quarter are refused."
)


def memories(s: FirmState, t: int, k: int = 4) -> list[str]:
    """The firm's most relevant memories about expansions, prices and refusals (empty without memory)."""
    if s.memory is None or not len(s.memory):
        return []
    hits = s.memory.recall("expansion plant outcome demand price refused", k=k, now=tick_time(t))
    return [h.unit.content for h in hits]


def firm_prompt(cfg: FirmsConfig, p: Perceived, s: FirmState, offline: bool) -> list[dict[str, str]]:
    """System and user messages for one firm; the data line only for the offline model."""
    recalled = memories(s, p.tick)
    lines = [
        f"Month {p.tick}. You are the {s.name.replace('_', ' ')} firm, "
        f"{FIRM_ARCHETYPES.get(s.persona.name, {}).get('portrait', 'a firm')}. Persona: {s.persona.describe()}",
        f"Last quarter: {p.text()}",
        DATA_NOTE,
        "Memory: " + (" | ".join(f'"{escape(m)}"' for m in recalled) or "none"),
        "Your decision as JSON.",
    ]
    if offline:
        lines.append(data_line({"perceived": p.data(), "persona": s.persona.model_dump(mode="json"),
                                "config": cfg.model_dump(mode="json")}))  # fmt: skip
    system = SYSTEM.format(months=cfg.construction_months, cost=cfg.plant_cost_months)
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


def ask_model(
    client: Any, cfg: FirmsConfig, seen: list[Perceived], states: list[FirmState]
) -> tuple[list[FirmDecision], list[str]]:
    """`client`'s decisions for all firms of the quarter (one batch) and where each came from."""
    offline = isinstance(getattr(client, "backend", None), OfflineBackend)
    prompts = [firm_prompt(cfg, p, s, offline) for p, s in zip(seen, states, strict=True)]
    marker = "fallback: "
    answers: list[FirmDecision] = client.structured_many(
        prompts, FirmDecision, purpose="decision",
        fallback=lambda reason: FirmDecision(production_target=0.0, reason=(marker + reason)[:400]),
    )  # fmt: skip
    out, sources = [], []
    for p, s, a in zip(seen, states, answers, strict=True):
        if a.reason.startswith(marker):
            out.append(heuristic_decision(p, s.persona, cfg))
            sources.append("fallback")
        else:
            out.append(a)
            sources.append("llm")
    return out, sources
