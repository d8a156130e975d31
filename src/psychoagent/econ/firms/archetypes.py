"""Firm archetypes as data: trait values with the reason for each, turned into a `Persona` by `firm_persona`.

Traits mean for a firm what they mean for a household: risk_preference is the appetite for building and pricing
aggressively, optimism the expected demand, learning_rate how fast outcomes change the other traits,
social_tendency how closely it follows others; allocation.rnd is the share of spare cash it puts into R&D.
"""

from __future__ import annotations

from typing import Any

from psychoagent.persona import Persona
from psychoagent.persona.archetypes import normalise_name
from psychoagent.persona.model import Allocation

FIRM_ARCHETYPES: dict[str, dict[str, Any]] = {
    "startup CEO": {
        "portrait": "a founder who bets on growth: builds early, spends on R&D, prices to win customers",
        "risk_preference": 0.8,
        "optimism": 0.5,
        "learning_rate": 0.7,
        "social_tendency": 0.6,
        "allocation": {"consume": 0.1, "save": 0.1, "invest": 0.4, "rnd": 0.4},
        "reasons": {
            "risk_preference": "expands before demand is proven",
            "optimism": "expects demand to keep growing",
            "learning_rate": "young firms update fast on outcomes (Malmendier & Nagel 2016: gain ~ 1/experience)",
            "allocation": "R&D and capacity come before reserves",
        },
    },
    "conservative manufacturer": {
        "portrait": "an old plant owner who protects cash: builds only on sustained demand, closes idle lines",
        "risk_preference": 0.25,
        "optimism": -0.1,
        "learning_rate": 0.3,
        "social_tendency": 0.5,
        "allocation": {"consume": 0.1, "save": 0.5, "invest": 0.3, "rnd": 0.1},
        "reasons": {
            "risk_preference": "a plant must pay for itself before it is built",
            "optimism": "expects demand to fade back",
            "learning_rate": "long experience: one quarter changes little",
            "allocation": "reserves first, little R&D",
        },
    },
    "established manufacturer": {
        "portrait": "a mature firm that reinvests steadily and values its partners",
        "risk_preference": 0.45,
        "optimism": 0.1,
        "learning_rate": 0.4,
        "social_tendency": 0.6,
        "allocation": {"consume": 0.1, "save": 0.3, "invest": 0.4, "rnd": 0.2},
        "reasons": {
            "risk_preference": "builds when utilisation is high, without racing ahead",
            "optimism": "mildly confident in its market",
            "learning_rate": "moderate: a few quarters of evidence move it",
            "allocation": "balanced between reserves, capacity and R&D",
        },
    },
}

_BY_KEY = {normalise_name(k): k for k in FIRM_ARCHETYPES}


def firm_archetypes() -> list[str]:
    """Names of the firm archetypes, sorted."""
    return sorted(FIRM_ARCHETYPES)


def firm_persona(name: str) -> Persona:
    """The persona of firm archetype `name` (case and separators ignored); ValueError listing the names."""
    key = _BY_KEY.get(normalise_name(name))
    if key is None:
        raise ValueError(f"unknown firm archetype {name!r}; choose one of: {', '.join(firm_archetypes())}")
    spec = FIRM_ARCHETYPES[key]
    return Persona(
        name=key,
        risk_preference=spec["risk_preference"],
        optimism=spec["optimism"],
        learning_rate=spec["learning_rate"],
        social_tendency=spec["social_tendency"],
        allocation=Allocation(**spec["allocation"]),
    )
