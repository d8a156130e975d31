"""A household's mind: the domain-neutral `CognitiveAgent` with market beliefs, open trade expectations scored
against later prices (seed 2.1.2: expected vs actual) and the guardrails' history of high-risk orders."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from psychoagent.affect.outcome import appraise_outcome
from psychoagent.agent.cognition import CognitiveAgent
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.mind.semantic import SemanticMemory, TradeRecord
from psychoagent.persona import Persona
from psychoagent.types import OutcomeEvent

if TYPE_CHECKING:
    from psychoagent.memory import Memory


@dataclass
class Expectation:
    """A decision's stated expectation, scored after `due` ticks (seed 2.1.2: expected vs actual)."""

    tick: int
    due: int
    instrument: str
    side: str
    entry: float
    quantity: float
    expected: float
    stake: float
    signal: str
    risky: bool


class HouseholdMind(CognitiveAgent):
    """Memory, market beliefs, working memory, open expectations and guardrail history of one household."""

    def __init__(self, index: int, persona: Persona, memory: Memory | None, cfg: CognitiveConfig,
                 population: bool = False, joined: int = 0) -> None:  # fmt: skip
        self.baseline_risk = persona.risk_preference
        self.joined = joined
        """Month this household's member joined the economy (its lived years count from here)."""
        self.expected_inflation: float | None = None
        """Inflation it expects over the next 12 months (None until its first year is lived)."""
        self.recalled_inflation: float | None = None
        """The recalled years' part of that expectation, revised on each anniversary (None: nothing recalled)."""
        self.semantic = SemanticMemory(memory, keep_graph=population)
        self.expectations: list[Expectation] = []
        self.high_risk: deque[bool] = deque(maxlen=8)
        super().__init__(index, memory, cfg, self.semantic, population=population)

    def expect(self, e: Expectation) -> None:
        self.expectations.append(e)

    def score(self, tick: int, prices: dict[str, float]) -> list[tuple[Expectation, float]]:
        """Expectations due now with their realised return; each becomes an outcome memory and a trade record."""
        if not self.expectations:
            return []
        due: list[Expectation] = []
        waiting: list[Expectation] = []
        for e in self.expectations:  # an expectation equal to a due one is due too: one pass splits them
            (due if e.due <= tick and prices.get(e.instrument, 0) > 0 else waiting).append(e)
        self.expectations = waiting
        out = []
        for e in due:
            move = prices[e.instrument] / e.entry - 1.0
            actual = move if e.side == "BUY" else -move
            affect = appraise_outcome(OutcomeEvent(
                expected=e.expected, actual=actual, stake=min(max(e.stake, 0.0), 1.0),
                description=f"return on {e.side.lower()} {e.instrument}",
            ))  # fmt: skip
            verb = "Bought" if e.side == "BUY" else "Sold"
            text = (
                f"{verb} {e.quantity:.3g} {e.instrument} at {e.entry:.4g} after a {e.signal.replace('_', ' ')} "
                f"signal expecting {e.expected:+.1%}; {tick - e.tick} month{'s' if tick - e.tick != 1 else ''} later {actual:+.1%} "
                f"({'success' if actual > 0 else 'failure'}, {e.stake:.0%} of assets)"
            )
            self.note(tick, text, affect, kind_of="outcome", instrument=e.instrument, side=e.side, signal=e.signal,
                      expected=e.expected, actual=actual, risky=e.risky, stake=e.stake)  # fmt: skip
            self.semantic.records.append(TradeRecord(e.instrument, e.side, e.signal, actual, ""))
            out.append((e, actual))
        return out
