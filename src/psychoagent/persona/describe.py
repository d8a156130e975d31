"""Render a persona as one or two plain sentences for an LLM prompt: the words of each trait's bands and the
sentence built from a persona's values (`Persona.describe` passes them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from psychoagent.persona.archetypes import ARCHETYPES

# (upper bound, word) bands: the first band whose bound is >= the value names it.
RISK_WORDS: tuple[tuple[float, str], ...] = (
    (0.2, "very risk-averse"),
    (0.4, "risk-averse"),
    (0.6, "moderate about risk"),
    (0.8, "risk-seeking"),
    (1.0, "strongly risk-seeking"),
)
OPTIMISM_WORDS: tuple[tuple[float, str], ...] = (
    (-0.6, "deeply pessimistic"),
    (-0.2, "pessimistic"),
    (0.2, "neutral in mood"),
    (0.6, "optimistic"),
    (1.0, "very optimistic"),
)
LEARNING_WORDS: tuple[tuple[float, str], ...] = (
    (0.3, "slow to change its mind"),
    (0.6, "learns at a steady pace"),
    (1.0, "adapts quickly to experience"),
)
SOCIAL_WORDS: tuple[tuple[float, str], ...] = (
    (0.3, "prefers to go it alone"),
    (0.6, "cooperates when it pays"),
    (1.0, "seeks cooperation"),
)
ALLOCATION_LABELS: dict[str, str] = {"consume": "consume", "save": "save", "invest": "invest", "rnd": "R&D"}


def band(value: float, words: tuple[tuple[float, str], ...]) -> str:
    """The word of the first band whose upper bound is at least `value` (the last band otherwise)."""
    for bound, word in words:
        if value <= bound:
            return word
    return words[-1][1]


def describe_persona(
    name: str,
    traits: Mapping[str, float],
    domain_optimism: Mapping[str, float],
    allocation: Iterable[tuple[str, float]],
) -> str:
    """E.g. 'Speculator (a trader who ...): strongly risk-seeking (risk 0.90), optimistic (+0.40), ...' from the
    archetype `name`, the scalar `traits` by name, the per-domain optimism and the (key, weight) budget shares."""
    head = name[:1].upper() + name[1:] if name else "Agent"
    portrait = ARCHETYPES.get(name, {}).get("portrait")
    if portrait:
        head += f" ({portrait})"
    risk, optimism = traits["risk_preference"], traits["optimism"]
    learning, social = traits["learning_rate"], traits["social_tendency"]
    parts = [
        f"{band(risk, RISK_WORDS)} (risk preference {risk:.2f})",
        f"{band(optimism, OPTIMISM_WORDS)} (optimism {optimism:+.2f})",
        f"{band(learning, LEARNING_WORDS)} (learning rate {learning:.2f})",
        f"{band(social, SOCIAL_WORDS)} (social tendency {social:.2f})",
    ]
    text = f"{head}: " + ", ".join(parts) + "."
    views = [
        f"{band(level, OPTIMISM_WORDS)} about {domain} ({level:+.2f})"
        for domain, level in sorted(domain_optimism.items())
    ]
    if views:
        text += " Views: " + "; ".join(views) + "."
    budget = ", ".join(f"{ALLOCATION_LABELS[k]} {w:.0%}" for k, w in allocation)
    return text + f" Default budget: {budget}."
