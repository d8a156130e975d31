"""Archetypes as data: named starting personas (seed 003, section 2.1.1), each with a one-line portrait.

Every archetype is a plain mapping of trait values; `Persona.archetype(name)` turns one into a persona whose
baseline equals its starting traits. Add an archetype by adding an entry here.
"""

from __future__ import annotations

from typing import Any

ALLOCATION_KEYS: tuple[str, ...] = ("consume", "save", "invest", "rnd")
"""Budget categories of the allocation simplex, in array order: consumption, saving, investment, R&D."""

NEUTRAL = "neutral"
"""Name of the archetype `Persona()` starts from."""

ARCHETYPES: dict[str, dict[str, Any]] = {
    NEUTRAL: {
        "portrait": "a balanced agent with no strong leanings",
        "risk_preference": 0.5,
        "optimism": 0.0,
        "learning_rate": 0.5,
        "social_tendency": 0.5,
        "allocation": {"consume": 0.4, "save": 0.3, "invest": 0.2, "rnd": 0.1},
    },
    "startup CEO": {
        "portrait": "a founder who bets on growth and pours money into R&D",
        "risk_preference": 0.8,
        "optimism": 0.5,
        "learning_rate": 0.7,
        "social_tendency": 0.7,
        "allocation": {"consume": 0.15, "save": 0.05, "invest": 0.3, "rnd": 0.5},
    },
    "conservative fund manager": {
        "portrait": "a steward of other people's money who protects capital first",
        "risk_preference": 0.25,
        "optimism": 0.0,
        "learning_rate": 0.3,
        "social_tendency": 0.4,
        "allocation": {"consume": 0.05, "save": 0.6, "invest": 0.35, "rnd": 0.0},
    },
    "cautious household": {
        "portrait": "a family that spends on needs and keeps a safety buffer",
        "risk_preference": 0.2,
        "optimism": -0.1,
        "learning_rate": 0.4,
        "social_tendency": 0.5,
        "allocation": {"consume": 0.6, "save": 0.35, "invest": 0.05, "rnd": 0.0},
    },
    "speculator": {
        "portrait": "a trader who chases momentum and reacts fast",
        "risk_preference": 0.9,
        "optimism": 0.4,
        "learning_rate": 0.8,
        "social_tendency": 0.3,
        "allocation": {"consume": 0.2, "save": 0.05, "invest": 0.75, "rnd": 0.0},
    },
    "moderately optimistic investor": {
        "portrait": "an investor who leans into the market but keeps some reserve",
        "risk_preference": 0.7,
        "optimism": 0.3,
        "learning_rate": 0.5,
        "social_tendency": 0.5,
        "allocation": {"consume": 0.3, "save": 0.2, "invest": 0.5, "rnd": 0.0},
    },
    "value investor": {
        "portrait": "a patient buyer of cheap assets who ignores the crowd",
        "risk_preference": 0.45,
        "optimism": 0.1,
        "learning_rate": 0.3,
        "social_tendency": 0.2,
        "allocation": {"consume": 0.2, "save": 0.3, "invest": 0.5, "rnd": 0.0},
    },
    "retiree": {
        "portrait": "a pensioner living on savings who fears losing them",
        "risk_preference": 0.1,
        "optimism": 0.0,
        "learning_rate": 0.2,
        "social_tendency": 0.6,
        "allocation": {"consume": 0.55, "save": 0.4, "invest": 0.05, "rnd": 0.0},
    },
    "established manufacturer": {
        "portrait": "a mature firm that reinvests steadily and values partners",
        "risk_preference": 0.45,
        "optimism": 0.1,
        "learning_rate": 0.4,
        "social_tendency": 0.6,
        "allocation": {"consume": 0.1, "save": 0.3, "invest": 0.4, "rnd": 0.2},
    },
}


def normalise_name(name: str) -> str:
    """Canonical key of an archetype name: case, underscores, hyphens and extra spaces do not matter."""
    return " ".join(name.replace("_", " ").replace("-", " ").lower().split())


_BY_KEY: dict[str, str] = {normalise_name(name): name for name in ARCHETYPES}


def resolve(name: str) -> str:
    """The archetype's canonical name, or a ValueError listing the names that exist."""
    key = normalise_name(name)
    if key not in _BY_KEY:
        raise ValueError(f"unknown archetype {name!r}; choose one of: {', '.join(sorted(ARCHETYPES))}")
    return _BY_KEY[key]


def list_archetypes() -> list[str]:
    """Names of all archetypes, sorted."""
    return sorted(ARCHETYPES)
