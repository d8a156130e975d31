"""Expected inflation from the years a household lived through (Malmendier & Nagel 2016, "Learning from Inflation
Experiences"): once a year since it joined, a household recalls the years of inflation it remembers, weighs them
by how well they come to mind (the recall's score: relevance, recency and, with affect, the mood that brings a
painful year back), and remembers this year in turn, appraised as a surprise against what it expected. Every
month after its first year it blends those recalled years with the inflation just published (the news is read
monthly, memory revised yearly: an expectation revised only yearly was up to a year stale). A household without memory reads the published inflation, as a rule
household does; cohorts that lived through different years expect differently only through what they remember."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from psychoagent.affect.config import OutcomeConfig
from psychoagent.affect.outcome import appraise_outcome
from psychoagent.agent.cognition import tick_time
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.persona import OutcomeEvent, Persona

QUERY = "How much did prices rise over the past year?"
"""What a household asks its memory when it thinks about prices."""

INSTRUMENT = "prices"
"""The `instrument` of a lived year's memory (no market trades it: trading decisions never read it)."""


def lived_year(inflation: float) -> str:
    """The memory of a year's inflation, as the household tells it."""
    return f"Prices {'rose' if inflation >= 0 else 'fell'} {abs(inflation):.1%} over the past year"


def recalled_inflation(hits: Sequence[tuple[Mapping[str, Any], float]]) -> float | None:
    """Score-weighted mean inflation of the recalled memories of lived years (metadata, score); None if none."""
    num = den = 0.0
    for meta, score in hits:
        if meta.get("instrument") == INSTRUMENT and "actual" in meta and score > 0:
            num += score * float(meta["actual"])
            den += score
    return num / den if den > 0 else None


def blend(published: float, recalled: float | None, weight: float) -> float:
    """The expectation: the recalled years at `weight`, the year just published at the rest."""
    return published if recalled is None else (1.0 - weight) * published + weight * recalled


class InflationExpectations:
    """On each anniversary of its joining, every household with memory recalls and remembers the year; every month
    after the first anniversary, each household blends what it recalled with the published inflation (without
    memory, the published inflation alone)."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit

    def __call__(
        self, t: int, published: float, minds: Mapping[int, Any], personas: Sequence[Persona]
    ) -> None:
        cfg = self.kit.cognitive.inflation
        if not cfg.enabled:
            return
        due = {i: m for i, m in minds.items() if t > m.joined and (t - m.joined) % 12 == 0}
        for i, m in minds.items():  # the published part follows the news every month
            if i not in due and m.expected_inflation is not None:
                m.expected_inflation = blend(published, m.recalled_inflation, cfg.experience_weight)
        if not due:
            return
        remembering = {i: m for i, m in due.items() if m.remembers}
        recalled = self._recall(t, remembering, personas, cfg.recall_k)
        appraisal = OutcomeConfig(error_floor=cfg.error_floor)
        for i, mind in due.items():
            before = mind.expected_inflation
            mind.recalled_inflation = recalled.get(i)
            mind.expected_inflation = blend(published, mind.recalled_inflation, cfg.experience_weight)
            if i not in remembering:
                continue
            expected = published if before is None else before
            felt = appraise_outcome(OutcomeEvent(expected=expected, actual=published, stake=1.0,
                                                 higher_is_better=False, description="inflation"), appraisal)  # fmt: skip
            mind.note(t, lived_year(published), felt, kind_of="outcome", instrument=INSTRUMENT, side="HELD",
                      signal="lived", expected=expected, actual=published, risky=False, stake=1.0)  # fmt: skip

    def _recall(self, t: int, minds: Mapping[int, Any], personas: Sequence[Persona],
                k: int) -> dict[int, float | None]:  # fmt: skip
        """Each household's recalled inflation: one batch through the population memory, else its own memory."""
        if not minds:
            return {}
        population = self.kit.population
        if population is not None:
            asks = [(i, QUERY, k, personas[i]) for i in minds]
            found = population.recall(t, asks)
            return {i: recalled_inflation([(r.metadata, s) for r, s, _ in hits])
                    for (i, *_), hits in zip(asks, found, strict=True)}  # fmt: skip
        out: dict[int, float | None] = {}
        for i, mind in minds.items():
            hits = mind.memory.recall(QUERY, k=k, where={"instrument": INSTRUMENT},
                                      now=tick_time(t).timestamp()) if mind.memory is not None else []  # fmt: skip
            out[i] = recalled_inflation([(h.unit.metadata, h.score) for h in hits])
        return out
