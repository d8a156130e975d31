"""Perception (seed 3.1): raw prices and indicators -> observations with economic meaning.

"steel 120, down 4 % on last period, below its 3-month average of 125; known: a new steel mill opened ->
oversupply more likely". Each observation carries structured fields (for the heuristic policy and guardrails)
and a text (for memory and prompts). Beliefs come from the agent's semantic memory.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psychoagent.agent.config import PerceptionConfig


@dataclass(frozen=True)
class Belief:
    """A piece of semantic knowledge about an entity: 'steel -expects-> oversupply' with a signed effect."""

    subject: str
    """Entity it is about: an instrument ('steel', 'stock:<firm>'), 'interest_rate', 'financing_cost' or a
    counterpart ('agent_<id>')."""
    relation: str
    """Kind of link: 'after' (a pattern learnt from trades), 'event' (news), 'negotiates', or a causal verb
    ('raises', 'lowers')."""
    object: str
    """What the subject is linked to: a signal ('sharp_fall') or an entity ('financing_cost'); the relation
    itself when the stored relation names no object ('event', 'negotiates')."""
    effect: float = 0.0
    """Signed effect: on an instrument, above 0 makes a price rise more likely (news sentiment, the mean
    return after a signal); -1 on the prior chains; a counterpart's mean concession - 0.5."""
    evidence: int = 1
    """How many trades or talks it rests on (1 for news and the prior causal chains)."""
    text: str = ""
    """The sentence stored in memory and shown in observations."""


@dataclass(frozen=True)
class Observation:
    """One instrument (or indicator) as the agent reads it this tick."""

    subject: str
    """The instrument ('steel', 'stock:<firm>'), or 'macro' for the indicators."""
    price: float
    """Latest price (macro: the interest rate)."""
    change: float
    """Relative change on the previous price (price / previous - 1; macro: 0)."""
    average: float
    """Mean of the `average_window` prices before the latest, the price itself when it is the only one
    (macro: the interest rate)."""
    trend: float
    """Mean log return over the last `average_window` periods."""
    volatility: float
    """Standard deviation of the log returns over the whole price history kept."""
    signal: str
    """'sharp_rise', 'sharp_fall', 'below_average', 'above_average' or 'steady' (`notable_move` sets the
    bands); 'macro' for the indicators."""
    beliefs: tuple[Belief, ...] = ()
    """The agent's beliefs about the subject, attached and described in the text."""
    text: str = ""
    """The sentence the agent remembers (`describe`)."""
    fields: Mapping[str, float] = field(default_factory=dict)
    """Structured numbers for the policies: price, change, average, gap (price / average - 1), trend and
    volatility; macro: the indicators."""

    @property
    def belief_effect(self) -> float:
        """Sum of the signed effects of the beliefs attached (positive: prices likely to rise)."""
        return float(sum(b.effect for b in self.beliefs))


class PriceHistory:
    """Public price series of every instrument (shared by all agents; the snapshot shows only the latest)."""

    def __init__(self, length: int) -> None:
        self.length = length
        self._series: dict[str, deque[float]] = {}
        self._tick = -1

    def record(self, tick: int, prices: Mapping[str, float]) -> None:
        """Append this tick's prices once (later calls in the same tick are ignored)."""
        if tick == self._tick:
            return
        self._tick = tick
        for name, price in prices.items():
            if np.isfinite(price) and price > 0:
                self._series.setdefault(name, deque(maxlen=self.length)).append(float(price))

    def series(self, name: str) -> np.ndarray:
        return np.asarray(self._series.get(name, ()), dtype=np.float64)

    def names(self) -> list[str]:
        return sorted(self._series)

    def returns(self, name: str) -> np.ndarray:
        s = self.series(name)
        return np.diff(np.log(s)) if s.size > 1 else np.zeros(0)


def describe(
    subject: str, price: float, change: float, average: float, window: int, beliefs: Sequence[Belief]
) -> str:
    """The sentence an agent remembers: price, move, comparison with its average, and known beliefs."""
    move = "flat" if abs(change) < 0.005 else f"{'up' if change > 0 else 'down'} {abs(change):.0%}"
    rel = "above" if price > average * 1.005 else "below" if price < average * 0.995 else "at"
    text = f"{subject} {price:.4g}, {move} on last period, {rel} its {window}-period average {average:.4g}"
    if beliefs:
        known = "; ".join(b.text or f"{b.subject} {b.relation} {b.object}" for b in beliefs[:2])
        direction = sum(b.effect for b in beliefs)
        lean = (
            "higher prices more likely"
            if direction > 0
            else "lower prices more likely"
            if direction < 0
            else ""
        )
        text += f"; known: {known}" + (f" -> {lean}" if lean else "")
    return text + "."


def observe_instrument(
    subject: str, series: np.ndarray, beliefs: Sequence[Belief], cfg: PerceptionConfig
) -> Observation | None:
    """An observation from a price series (oldest first); None without a price."""
    if series.size == 0:
        return None
    price = float(series[-1])
    prev = float(series[-2]) if series.size > 1 else price
    change = price / prev - 1.0 if prev > 0 else 0.0
    window = series[-cfg.average_window - 1 : -1] if series.size > 1 else series
    average = float(window.mean())
    rets = np.diff(np.log(series[-cfg.average_window - 1 :])) if series.size > 1 else np.zeros(1)
    trend = float(rets.mean()) if rets.size else 0.0
    all_rets = np.diff(np.log(series)) if series.size > 2 else np.zeros(1)
    vol = float(all_rets.std()) if all_rets.size > 1 else 0.0
    gap = price / average - 1.0 if average > 0 else 0.0
    if abs(change) >= cfg.notable_move:
        signal = "sharp_rise" if change > 0 else "sharp_fall"
    elif gap < -cfg.notable_move:
        signal = "below_average"
    elif gap > cfg.notable_move:
        signal = "above_average"
    else:
        signal = "steady"
    text = describe(subject, price, change, average, cfg.average_window, beliefs)
    fields = {
        "price": price,
        "change": change,
        "average": average,
        "gap": gap,
        "trend": trend,
        "volatility": vol,
    }
    return Observation(subject, price, change, average, trend, vol, signal, tuple(beliefs), text, fields)


def perceive(
    history: PriceHistory,
    instruments: Sequence[str],
    beliefs: Mapping[str, Sequence[Belief]],
    cfg: PerceptionConfig,
    indicators: Mapping[str, float] | None = None,
) -> list[Observation]:
    """Observations for each instrument with a price, plus one for the macro indicators when given."""
    out = []
    for name in instruments:
        obs = observe_instrument(name, history.series(name), beliefs.get(name, ()), cfg)
        if obs is not None:
            out.append(obs)
    if indicators:
        rate, infl, unemp = (indicators.get(k, 0.0) for k in ("interest_rate", "inflation", "unemployment"))
        known = tuple(beliefs.get("interest_rate", ()))
        text = f"interest rate {rate:.1%}, inflation {infl:.1%}, unemployment {unemp:.1%}"
        if known:
            text += "; known: " + "; ".join(b.text for b in known[:2])
        out.append(
            Observation("macro", rate, 0.0, rate, 0.0, 0.0, "macro", known, text + ".", dict(indicators))
        )
    return out


_MISSING: Any = object()


class BeliefKeys:
    """One canonical tuple per distinct belief list, kept across months: an agent's `by_subject()` lists live
    until a belief changes, so a list seen last month maps to its tuple without hashing its beliefs again, and
    equal lists of different agents map to the same tuple object (compared by identity, not belief by belief)."""

    def __init__(self) -> None:
        self._now: dict[int, tuple[Sequence[Belief], tuple[Belief, ...]]] = {}
        self._last: dict[int, tuple[Sequence[Belief], tuple[Belief, ...]]] = {}
        self._canon: dict[tuple[Belief, ...], tuple[Belief, ...]] = {}

    def next_month(self) -> None:
        """Keep the lists seen this month (and their tuples) for the next; forget older ones."""
        self._last, self._now = self._now, {}
        self._canon = {t: t for _, t in self._last.values()}

    def of(self, held: Sequence[Belief]) -> tuple[Belief, ...]:
        """The canonical tuple of `held` (the list is kept alive with it, so its id stays its own)."""
        seen = self._now.get(id(held))
        if seen is None or seen[0] is not held:
            seen = self._last.get(id(held))
            if seen is None or seen[0] is not held:
                t = tuple(held)
                seen = (held, self._canon.setdefault(t, t))
            self._now[id(held)] = seen
        return seen[1]


class TickPerception:
    """`perceive` for many agents in one tick: each instrument's series is read once and each distinct set of
    beliefs about it is described once (agents mostly share their beliefs, so most lookups are hits)."""

    def __init__(
        self,
        history: PriceHistory,
        instruments: Sequence[str],
        cfg: PerceptionConfig,
        indicators: Mapping[str, float] | None = None,
        keys: BeliefKeys | None = None,
    ) -> None:
        self.history = history
        self.keys = keys or BeliefKeys()
        """Canonical belief tuples (pass the same object every tick to reuse them across ticks)."""
        self.instruments = list(instruments)
        self.cfg = cfg
        self.indicators = indicators
        self._series = {name: history.series(name) for name in self.instruments}
        self._cache: dict[tuple[str, tuple[Belief, ...]], Observation | None] = {}
        self._by_key: dict[tuple[str, int], tuple[tuple[Belief, ...], Observation | None]] = {}

    def _with_beliefs(self, name: str, beliefs: tuple[Belief, ...]) -> Observation | None:
        """The instrument's statistics (computed once per tick) with these beliefs attached and described."""
        base = self._cache.get((name, ()), _MISSING)
        if base is _MISSING:
            base = observe_instrument(name, self._series[name], (), self.cfg)
            self._cache[(name, ())] = base
        if base is None or not beliefs:
            return base
        text = describe(name, base.price, base.change, base.average, self.cfg.average_window, beliefs)
        return Observation(base.subject, base.price, base.change, base.average, base.trend, base.volatility,
                           base.signal, beliefs, text, base.fields)  # fmt: skip

    def observe(self, beliefs: Mapping[str, Sequence[Belief]]) -> list[Observation]:
        """The same observations `perceive` returns for an agent holding these beliefs. Agents with equal
        beliefs about an instrument share its observation (their lists map to one canonical tuple)."""
        out = []
        by_key, of = self._by_key, self.keys.of
        for name in self.instruments:
            held = of(beliefs.get(name, ()))
            seen = by_key.get((name, id(held)))
            if seen is not None and seen[0] is held:
                obs = seen[1]
            else:
                obs = self._cache.get((name, held), _MISSING)
                if obs is _MISSING:
                    obs = self._with_beliefs(name, held)
                    self._cache[(name, held)] = obs
                by_key[(name, id(held))] = (held, obs)  # the tuple is kept alive, so its id stays its own
            if obs is not None:
                out.append(obs)
        if self.indicators:
            held = of(beliefs.get("interest_rate", ()))
            seen = by_key.get(("macro", id(held)))
            if seen is None or seen[0] is not held:
                if ("macro", held) not in self._cache:
                    self._cache[("macro", held)] = perceive(
                        self.history, [], {"interest_rate": held}, self.cfg, self.indicators
                    )[0]
                seen = by_key[("macro", id(held))] = (held, self._cache[("macro", held)])
            assert seen[1] is not None
            out.append(seen[1])
        return out
