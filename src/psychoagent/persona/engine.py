"""The evolution engine (seed 003, 2.1.2 and 4.2): outcomes change personas smoothly and explainably, and
traits drift back to their baselines when nothing relevant happens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from psychoagent.persona import dynamics as dyn
from psychoagent.persona.array import PersonaArray
from psychoagent.persona.config import EvolutionConfig
from psychoagent.persona.events import Explanation, OutcomeEvent
from psychoagent.persona.model import OPTIMISM_RANGE, UNIT_RANGE, Persona

Array = NDArray[np.float64]
K = TypeVar("K")


@dataclass(frozen=True)
class BatchOutcome:
    """Per-agent intermediate values of one vectorised update, for explanations and logging."""

    error: Array
    importance: Array
    impact: Array
    major: NDArray[np.bool_]
    learning_boosted: NDArray[np.bool_]


def _vector(values: ArrayLike, n: int, name: str) -> Array:
    out = np.asarray(values, dtype=np.float64)
    out = np.full(n, out) if out.ndim == 0 else np.ascontiguousarray(np.broadcast_to(out, (n,)))
    if not np.isfinite(out).all():
        raise ValueError(f"{name} must be finite numbers")
    return out


class EvolutionEngine:
    """Turns outcome events into persona changes and time into decay; all math lives in `dynamics`.

    `config` is an EvolutionConfig, a preset name ('default', 'resilient', 'volatile') or None (default).
    """

    def __init__(self, config: EvolutionConfig | str | None = None) -> None:
        if config is None:
            config = EvolutionConfig()
        elif isinstance(config, str):
            config = EvolutionConfig.preset(config)
        self.config: EvolutionConfig = config

    @classmethod
    def preset(cls, name: str) -> EvolutionEngine:
        """An engine with a named preset."""
        return cls(EvolutionConfig.preset(name))

    def __repr__(self) -> str:
        return f"EvolutionEngine(loss_aversion={self.config.loss_aversion}, ...)"

    # ---- vectorised path -------------------------------------------------------------------------------

    def update_many(
        self,
        personas: PersonaArray,
        expected: ArrayLike,
        actual: ArrayLike,
        stake: ArrayLike,
        domains: Sequence[str | None] | None = None,
    ) -> tuple[PersonaArray, BatchOutcome]:
        """Apply one outcome event per agent (scalars broadcast); returns the new personas and the intermediates."""
        cfg = self.config
        n = len(personas)
        exp_, act_, stake_ = (
            _vector(expected, n, "expected"),
            _vector(actual, n, "actual"),
            _vector(stake, n, "stake"),
        )
        if (stake_ < 0).any():
            raise ValueError("stake must be >= 0 (share of liquid wealth involved)")
        error = dyn.prediction_error(exp_, act_)
        weight = dyn.importance(stake_, cfg)
        major = dyn.is_major(error, cfg)
        shock = dyn.impact(error, weight, major, cfg)
        mult = dyn.learning_multiplier(personas.learning_rate, cfg)

        optimism_step = dyn.trait_step(shock, mult, cfg.optimism)
        global_step = optimism_step
        domain_optimism = personas.domain_optimism
        if domains is not None:
            if len(domains) != n:
                raise ValueError(f"domains must have one entry per agent ({n}), got {len(domains)}")
            has_domain = np.array([d is not None for d in domains], dtype=bool)
            global_step = optimism_step * np.where(has_domain, cfg.domain_spillover, 1.0)
            domain_optimism = self._update_domains(personas, domains, optimism_step)

        streak = dyn.advance_streak(personas.miss_streak, major)
        learning_rate, boosted = dyn.boost_learning(personas.learning_rate, streak, cfg)
        new = personas.with_traits(
            risk_preference=dyn.bounded(
                personas.risk_preference, dyn.trait_step(shock, mult, cfg.risk_preference), *UNIT_RANGE
            ),
            optimism=dyn.bounded(personas.optimism, global_step, *OPTIMISM_RANGE),
            social_tendency=dyn.bounded(
                personas.social_tendency, dyn.trait_step(shock, mult, cfg.social_tendency), *UNIT_RANGE
            ),
            learning_rate=learning_rate,
            allocation=dyn.tilt_allocation(personas.allocation, shock, mult, cfg.allocation),
            miss_streak=streak,
            domain_optimism=domain_optimism,
        )
        return new, BatchOutcome(error, weight, shock, major, boosted)

    @staticmethod
    def _update_domains(
        personas: PersonaArray, domains: Sequence[str | None], step: Array
    ) -> tuple[dict[str, float], ...]:
        """Domain optimism moves by the full optimism step, starting from the global view if it had none."""
        low, high = OPTIMISM_RANGE
        out = list(personas.domain_optimism)
        for i, domain in enumerate(domains):
            if domain is None:
                continue
            views = dict(out[i])
            start = views.get(domain, float(personas.optimism[i]))
            views[domain] = min(high, max(low, start + float(step[i])))
            out[i] = views
        return tuple(out)

    def tick_many(self, personas: PersonaArray, dt: float = 1.0) -> PersonaArray:
        """Let dt ticks pass without events: every trait returns geometrically toward its baseline."""
        cfg = self.config
        f_risk = dyn.decay_factor(dt, cfg.risk_preference.half_life)
        f_opt = dyn.decay_factor(dt, cfg.optimism.half_life)
        f_social = dyn.decay_factor(dt, cfg.social_tendency.half_life)
        f_learn = dyn.decay_factor(dt, cfg.learning_rate_half_life)
        f_alloc = dyn.decay_factor(dt, cfg.allocation.half_life)
        domain_optimism = tuple(
            {d: float(base) + (level - float(base)) * f_opt for d, level in views.items()} if views else views
            for views, base in zip(personas.domain_optimism, personas.baseline_optimism, strict=True)
        )
        return personas.with_traits(
            risk_preference=dyn.decay(personas.risk_preference, personas.baseline_risk_preference, f_risk),
            optimism=dyn.decay(personas.optimism, personas.baseline_optimism, f_opt),
            social_tendency=dyn.decay(personas.social_tendency, personas.baseline_social_tendency, f_social),
            learning_rate=dyn.decay(personas.learning_rate, personas.baseline_learning_rate, f_learn),
            allocation=dyn.renormalise(dyn.decay(personas.allocation, personas.baseline_allocation, f_alloc)),
            domain_optimism=domain_optimism,
        )

    # ---- scalar path (the same math on arrays of length one) ---------------------------------------------

    def update(self, persona: Persona, event: OutcomeEvent) -> tuple[Persona, Explanation]:
        """Evolve one persona by one outcome event; returns the new persona and why it changed."""
        domains = None if event.domain is None else [event.domain]
        arrays, out = self.update_many(
            PersonaArray.from_personas([persona]), event.expected, event.actual, event.stake, domains
        )
        new = arrays.evolved(0, persona)
        before, after = _snapshot(persona, event.domain), _snapshot(new, event.domain)
        explanation = Explanation(
            event=event,
            error=float(out.error[0]),
            importance=float(out.importance[0]),
            major=bool(out.major[0]),
            impact=float(out.impact[0]),
            loss_aversion=self.config.loss_aversion,
            before=before,
            after=after,
            deltas={key: after[key] - before[key] for key in after},
            miss_streak=new.miss_streak,
            learning_boosted=bool(out.learning_boosted[0]),
        )
        return new, explanation

    def update_each(
        self, personas: Sequence[Persona], events: Sequence[OutcomeEvent]
    ) -> list[tuple[Persona, Explanation]]:
        """`update` for many (persona, event) pairs in one vectorised call: the same results, one array pass."""
        if len(personas) != len(events):
            raise ValueError(f"events must have one entry per persona ({len(personas)}), got {len(events)}")
        if not personas:
            return []
        domains = [e.domain for e in events]
        arrays, out = self.update_many(
            PersonaArray.from_personas(personas), [e.expected for e in events], [e.actual for e in events],
            [e.stake for e in events], domains if any(d is not None for d in domains) else None,
        )  # fmt: skip
        result = []
        for j, (persona, event) in enumerate(zip(personas, events, strict=True)):
            new = arrays.evolved(j, persona)
            before, after = _snapshot(persona, event.domain), _snapshot(new, event.domain)
            result.append((new, Explanation(
                event=event, error=float(out.error[j]), importance=float(out.importance[j]),
                major=bool(out.major[j]), impact=float(out.impact[j]), loss_aversion=self.config.loss_aversion,
                before=before, after=after, deltas={key: after[key] - before[key] for key in after},
                miss_streak=new.miss_streak, learning_boosted=bool(out.learning_boosted[j]),
            )))  # fmt: skip
        return result

    def update_in_rounds(
        self, personas: Mapping[K, Persona], events: Mapping[K, Sequence[OutcomeEvent]]
    ) -> dict[K, list[tuple[Persona, Explanation]]]:
        """Each agent's events in its order, all agents at once: round r applies every agent's r-th event in one
        `update_each` call. Returns, per agent with events, the persona and explanation after each of them."""
        out: dict[K, list[tuple[Persona, Explanation]]] = {}
        for r in range(max((len(v) for v in events.values()), default=0)):
            who = [k for k, v in events.items() if len(v) > r]
            now = [out[k][-1][0] if k in out else personas[k] for k in who]
            for k, done in zip(who, self.update_each(now, [events[k][r] for k in who]), strict=True):
                out.setdefault(k, []).append(done)
        return out

    def tick_each(self, personas: Sequence[Persona], dt: float = 1.0) -> list[Persona]:
        """`tick` for many personas in one vectorised call."""
        if not personas:
            return []
        arrays = self.tick_many(PersonaArray.from_personas(personas), dt)
        return [arrays.evolved(j, p) for j, p in enumerate(personas)]

    def tick(self, persona: Persona, dt: float = 1.0) -> Persona:
        """One persona after dt ticks without events."""
        return self.tick_many(PersonaArray.from_personas([persona]), dt).evolved(0, persona)


def _snapshot(persona: Persona, domain: str | None) -> dict[str, float]:
    row = persona.traits()
    if domain is not None:
        row[f"optimism[{domain}]"] = persona.optimism_for(domain)
    return row
