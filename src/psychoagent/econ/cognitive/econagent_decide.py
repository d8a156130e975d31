"""econagent's decide step: each deciding household's work and consumption propensities (and an optional trade)
from the model, passed through `guard_propensities`; the propensities replace the persona rule's intents of the
households that have answered. The `Ledger` keeps what the decide and reflect steps share."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from psychoagent.econ.cognitive.config import EconAgentConfig, ModelCallConfig
from psychoagent.econ.cognitive.econagent_calls import (
    as_propensities,
    compact_prompt,
    memory_text,
    model_answer,
    reuse_key,
)
from psychoagent.econ.cognitive.econagent_prompt import full_prompt
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.llm_policy import Fuser, assets, group_key
from psychoagent.econ.cognitive.month import Deciding, Month
from psychoagent.econ.cognitive.propensity import Propensities, Reflection, guard_propensities
from psychoagent.econ.cognitive.seat import ModelSeat
from psychoagent.econ.intents import HouseholdView, IntentBatch
from psychoagent.econ.mind.schema import Decision
from psychoagent.econ.snapshot import Snapshot
from psychoagent.events import EventType


class Ledger:
    """What econagent's steps keep between months: the propensities in force, each household's last months and
    expected income, and a language model's answers for reuse."""

    def __init__(self, econ: EconAgentConfig, calls: ModelCallConfig) -> None:
        self.econ = econ
        self.calls = calls
        self.work = np.zeros(0)
        """Work propensity in force per household (nan until it first answers)."""
        self.consume = np.zeros(0)
        self.months: dict[int, deque[dict[str, Any]]] = {}
        """Each household's last months (worked, wanted work, income, spent, budget, rationed, tax)."""
        self.expected_income: dict[int, float] = {}
        self.answered: dict[tuple[Any, ...], tuple[int, Propensities]] = {}
        """A language model's last answer per `reuse_key`, with its month (reused within `calls.reuse_months`)."""
        self.reflected: dict[Any, tuple[int, Reflection]] = {}
        """The same for reflections, by the quarter's key (worked at least half of it, goods ran short)."""

    def start(self, n: int) -> None:
        """No household of the `n` has answered yet."""
        self.work, self.consume = np.full(n, np.nan), np.full(n, np.nan)

    def kept(self, memo: dict[Any, tuple[int, Any]], key: Any, tick: int) -> Any:
        """The answer `memo` holds for `key` when it was given within `calls.reuse_months`, else None."""
        found = memo.get(key)
        return found[1] if found is not None and tick - found[0] < self.calls.reuse_months else None


class AskForPropensities:
    """Ask the model (offline: one call per household with the full prompt; a language model: one per group of
    alike households, answers reused for `reuse_months`), guard each answer, keep the propensities and turn the
    trade into a `Decision` for the guardrails; then the households that answered work and spend as they said."""

    def __init__(self, kit: Kit, seat: ModelSeat, fuse: Fuser, ledger: Ledger) -> None:
        self.kit = kit
        self.seat = seat
        self.fuse = fuse
        self.ledger = ledger

    def __call__(self, month: Month) -> None:
        ledger, view, rule = self.ledger, month.view, month.intents
        assert rule is not None
        if ledger.work.size != len(view):
            ledger.start(len(view))
        if month.deciding:
            self.decide(month, rule)
        known = np.isfinite(ledger.work)
        month.intents = IntentBatch(np.where(known, ledger.work, rule.work),
                                    np.where(known, ledger.consume, rule.consume), rule.save)  # fmt: skip

    def decide(self, month: Month, rule: IntentBatch) -> None:
        """The deciding households' answers (the persona rule's numbers where an answer fell back), guarded."""
        kit, ledger, econ, view, tick = self.kit, self.ledger, self.ledger.econ, month.view, month.tick
        deciding = month.deciding
        self.seat.ready()
        offline = self.seat.offline()  # offline answers cost nothing: one per household, the full prompt
        grouped = econ.group and not offline
        groups: dict[Any, list[int]] = {}
        for pos, d in enumerate(deciding):
            groups.setdefault(self.propensity_key(d, view) if grouped else pos, []).append(pos)
        found = self.ask(month, list(groups.values()), offline)
        kit.count("llm.grouped", len(deciding) - len(groups))
        answers: list[Propensities] = [found[0]] * len(deciding)
        for answer, members in zip(found, groups.values(), strict=True):
            for pos in members:
                answers[pos] = answer
        for d, answer in zip(deciding, answers, strict=True):
            i, persona = d.index, d.persona
            fell_back = answer.reason.startswith("fallback:")
            work, consume = (
                (rule.work[i], rule.consume[i]) if fell_back else (answer.work, answer.consumption)
            )
            last_w, last_c = ledger.work[i], ledger.consume[i]
            g = guard_propensities(
                float(work), float(consume), last_work=None if np.isnan(last_w) else float(last_w),
                last_consumption=None if np.isnan(last_c) else float(last_c), risk=persona.risk_preference,
                baseline_risk=persona.baseline.risk_preference, wealth=float(view.wealth[i]),
                potential_income=float(view.potential_income[i]), cfg=econ,
            )  # fmt: skip
            for note in g.notes:
                kit.emit(tick, EventType.GUARDRAIL_ADJUSTED, {"reason": note, "intent": "propensities"},
                         f"household:{i}")  # fmt: skip
            ledger.work[i], ledger.consume[i] = g.work, g.consumption
            kit.emit(tick, EventType.DECISION_MADE, {"work": g.work, "consumption": g.consumption, "fallback": fell_back,
                     "trade": answer.trade.describe() if answer.trade else "", "reason": answer.reason[:200]},
                     f"household:{i}")  # fmt: skip
            if answer.trade is None or fell_back:
                d.decision = Decision(type="WAIT", reason=answer.reason[:200])
            else:
                d.decision = Decision(type="DECIDE", orders=[answer.trade], instrument=answer.trade.instrument,
                                      expected_return=answer.expected_return, reason=answer.reason[:200])  # fmt: skip

    def ask(self, month: Month, groups: list[list[int]], offline: bool) -> list[Propensities]:
        """One answer per group: the offline model gets the full prompt; a language model the compact one, and a
        group whose `reuse_key` was answered within `ModelCallConfig.reuse_months` reuses that answer (no trade)."""
        kit, ledger, tick, client = self.kit, self.ledger, month.tick, self.seat.ready()
        leaders = [month.deciding[members[0]] for members in groups]
        fused = kit.cognitive.recall.llm_briefing
        if offline:
            texts = self.fuse(leaders) if fused else [d.briefing.text if d.briefing else "" for d in leaders]
            prompts = [self.prompt(month, d, text) for d, text in zip(leaders, texts, strict=True)]
            kit.count("llm.calls", len(prompts))
            return list(client.structured_many(
                prompts, Propensities, purpose="decision",
                fallback=lambda reason: Propensities(work=0.0, consumption=0.0, reason=f"fallback: {reason}"[:400]),
            ))  # fmt: skip
        bands = ledger.calls.risk_bands  # without grouping each household keeps its own answer
        keys = [reuse_key(d.persona.risk_preference, self.propensity_key(d, month.view), bands)
                if ledger.econ.group else (d.index,) for d in leaders]  # fmt: skip
        answers: list[Propensities | None] = [None] * len(leaders)
        for pos, key in enumerate(keys):
            kept = ledger.kept(ledger.answered, key, tick)
            if kept is not None:
                answers[pos] = kept.model_copy(update={"trade": None, "expected_return": 0.0})
        first: dict[tuple[Any, ...], int] = {}
        for pos, a in enumerate(answers):
            if a is None:
                first.setdefault(keys[pos], pos)  # one call per reuse key
        todo = list(first.values())
        picked = [leaders[pos] for pos in todo]
        summaries: list[str | None] = list(self.fuse(picked)) if fused else [None] * len(picked)
        prompts = [self.model_prompt(month, d, text) for d, text in zip(picked, summaries, strict=True)]
        sampling = client.config.sampling.model_copy(update={"max_tokens": ledger.calls.max_tokens})
        schema = model_answer(tuple(kit.instruments()))
        failed = schema(work=0.0, consumption=0.0)  # the declared fallback, recognised by identity
        asked = client.structured_many(
            prompts, schema, purpose="decision", sampling=sampling, fallback=failed
        )
        kit.count("llm.calls", len(prompts))
        for pos, raw in zip(todo, asked, strict=True):
            if raw is failed:
                answers[pos] = Propensities(work=0.0, consumption=0.0, reason="fallback: no valid answer")
                continue
            answer = as_propensities(raw, kit.cognitive.trade_share)
            answers[pos] = answer = answer.model_copy(update={"reason": f"model answer of month {tick}"})
            ledger.answered[keys[pos]] = (tick, answer)
        for pos, key in enumerate(keys):
            if answers[pos] is None:  # the same reuse key as a group asked this month: the same answer
                answers[pos] = answers[first[key]]
        kit.count("llm.reused", len(leaders) - len(prompts))
        return [a for a in answers if a is not None]

    def model_prompt(self, month: Month, d: Deciding, fused: str | None = None) -> list[dict[str, str]]:
        """The compact prompt of a language model for one household (`econagent_calls.compact_prompt`)."""
        snap, kit, i = self._snapshot(month), self.kit, d.index
        memory = fused or memory_text(d.mind.working, d.mind.feedback, self.ledger.calls.memory_words)
        return compact_prompt(snap, month.view, i, d.persona, list(self.ledger.months.get(i, ())),
                              assets(kit, snap, i, d.observations), kit.holdings(i), memory,
                              kit.cognitive.horizon)  # fmt: skip

    def propensity_key(self, d: Deciding, view: HouseholdView) -> tuple[Any, ...]:
        """Households alike enough to share one answer: the trade grouping of the llm policy plus the facts the
        propensities turn on (savings band in months of pay, last month worked / not hired / off, sector)."""
        i = d.index
        pay = float(view.potential_income[i])
        months = float(view.wealth[i]) / pay if pay > 0 else 0.0
        band = int(np.searchsorted(self.ledger.econ.savings_bands, months))
        last = self.ledger.months.get(i)
        status = (
            "none"
            if not last
            else "worked"
            if last[-1]["worked"]
            else "unhired"
            if last[-1]["wanted"]
            else "off"
        )
        return (*group_key(self.kit, d), band, status, int(view.sector[i]))

    def prompt(self, month: Month, d: Deciding, briefing: str) -> list[dict[str, str]]:
        """System + user messages for one household (`econagent_prompt.full_prompt`); the data line for offline."""
        snap, kit, i = self._snapshot(month), self.kit, d.index
        return full_prompt(snap, month.view, i, d.persona, list(self.ledger.months.get(i, ())),
                           assets(kit, snap, i, d.observations), kit.holdings(i), briefing, kit.cognitive.horizon,
                           self.seat.offline())  # fmt: skip

    @staticmethod
    def _snapshot(month: Month) -> Snapshot:
        assert month.snapshot is not None, "econagent decides on a month's snapshot"
        return month.snapshot
