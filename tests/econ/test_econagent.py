"""The econagent policy: the model's work and consumption propensities drive the economy through the loop."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.agent.bus import EventBus
from psychoagent.econ.cognitive.config import EconAgentConfig, ModelCallConfig
from psychoagent.econ.cognitive.econagent import EconAgentPolicy
from psychoagent.econ.cognitive.propensity import guard_propensities
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.run import simulate
from psychoagent.llm import LLMClient, OfflineBackend


def run(
    policy: EconAgentPolicy, ticks: int = 6, n: int = 20, seed: int = 4
) -> tuple[EconomyModel, Counter[str], EventBus]:
    bus = EventBus(keep=200_000)
    model = EconomyModel(seed=seed, policy=policy, households=n, bus=bus)
    model.run(ticks)
    return model, Counter(e.type for e in bus.history), bus


def test_offline_run_has_decisions_orders_guardrails_memory_and_persona_events() -> None:
    policy = EconAgentPolicy(client=LLMClient(OfflineBackend()))
    model, seen, _ = run(policy, seed=8)  # a seed whose six months change some jobs and move some traits
    assert seen["decision.made"] == 6 * 20
    assert seen["market.order_filled"] > 0 and policy.counts.get("decision.DECIDE", 0) > 0
    assert seen["guardrail.adjusted"] + seen["guardrail.rejected"] > 0
    assert seen["memory.formed"] > 0 and seen["persona.evolved"] > 0
    reflections = [b for a in policy.kit.minds().values() for (_, rel), b in a.semantic.beliefs.items()
                   if rel == "reflects:quarter" and b.text]  # fmt: skip
    assert reflections  # quarterly reflection kept as semantic memory
    usage = policy.usage()["purposes"]
    assert usage["decision"]["calls"] == 120 and usage["reflection"]["calls"] > 0
    assert np.allclose(
        model.households.work_prob, policy.ledger.work
    )  # the model's answers reached the economy


def test_the_model_decides_and_a_bad_answer_falls_back_to_the_rule() -> None:
    def lazy(messages: Any, schema: Any) -> Any:
        if schema and schema.get("title") == "Propensities":
            user = next(m["content"] for m in messages if m["role"] == "user")  # the same on the repair round
            return "not json at all" if len(user) % 5 == 0 else {"work": 0.2, "consumption": 0.9}
        return None

    policy = EconAgentPolicy(client=LLMClient(OfflineBackend(rule=lazy)),
                             econ=EconAgentConfig(max_change=1.0, min_work=0.0, consume_risk_slope=0.5))  # fmt: skip
    model, _, _ = run(policy, ticks=2)
    stats = policy.usage()["purposes"]["decision"]
    assert stats["outcomes"]["fallback"] > 0
    answered = np.isclose(policy.ledger.consume, 0.9 * np.clip(1 + 0.5 * (np.array(
        [p.risk_preference - p.baseline.risk_preference for p in model.personas])), 0.5, 1.5), atol=0.02)  # fmt: skip
    assert answered.any() and not answered.all()  # answers where valid, the persona rule where not


def test_guardrails_round_adjust_and_limit() -> None:
    # the persona adjustment, for a model that ignores the persona
    cfg = EconAgentConfig(consume_risk_slope=0.5)
    g = guard_propensities(0.013, 0.97, last_work=0.9, last_consumption=0.3, risk=0.3, baseline_risk=0.5,
                           wealth=100.0, potential_income=1000.0, cfg=cfg)  # fmt: skip
    assert g.consumption == 0.6 and g.work == 0.6  # persona cut, then inertia (0.3 from last)
    assert [n.split(":")[0] for n in g.notes] == ["persona", "inertia", "inertia"]
    poor = guard_propensities(0.1, 0.4, last_work=None, last_consumption=None, risk=0.5, baseline_risk=0.5,
                              wealth=100.0, potential_income=1000.0, cfg=cfg)  # fmt: skip
    assert poor.work == 0.5 and poor.notes[0].startswith("subsistence")
    calm = guard_propensities(0.5, 0.4, last_work=0.5, last_consumption=0.4, risk=0.5, baseline_risk=0.5,
                              wealth=1e5, potential_income=1000.0, cfg=cfg)  # fmt: skip
    assert (calm.work, calm.consumption, calm.notes) == (0.5, 0.4, ())
    plain = guard_propensities(0.6, 0.4, last_work=0.6, last_consumption=0.4, risk=0.2, baseline_risk=0.5,
                               wealth=1e5, potential_income=1000.0, cfg=EconAgentConfig())  # fmt: skip
    # by default the answer's persona is not counted twice
    assert plain.consumption == 0.4 and plain.notes == ()


def test_run_files_name_the_model(tmp_path: Path) -> None:
    simulate(tmp_path / "run", agents=8, ticks=2, policy="econagent", llm=None)
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["policy"] == "econagent" and config["llm"] == "offline" and config["model"] == "offline"


class Words:
    """A stand-in language model (not the offline backend): records prompts, answers one fixed object."""

    name = "words"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def modes(self) -> tuple[str, ...]:
        return ("prompt",)

    async def acomplete(self, request: Any) -> Any:
        from psychoagent.llm.base import Completion

        self.prompts.append(request.messages[-1]["content"])
        title = (request.schema or {}).get("title")
        text = (
            '{"work": 0.5, "consumption": 0.3}' if title == "Propensities" else '{"text": "Work paid off."}'
        )
        return Completion(text=text, model=self.name)


def test_a_language_model_reads_the_profile_in_words_without_the_data_line() -> None:
    backend = Words()
    policy = EconAgentPolicy(client=LLMClient(backend))  # type: ignore[arg-type]
    _, seen, _ = run(policy, ticks=3, n=6)
    assert not any("Data: " in p for p in backend.prompts)
    prompt = [p for p in backend.prompts if p.startswith("Month")][-1]
    assert "You: " in prompt and "risk 0." in prompt and "tax last month" in prompt and "Memory:" in prompt
    assert "transfers" in prompt and "interest" in prompt and "savings" in prompt
    assert "Last months (income/spent): " in prompt and "none yet" not in prompt  # last months' outcomes
    assert np.allclose(
        policy.ledger.consume[np.isfinite(policy.ledger.consume)], 0.3, atol=0.2
    )  # the answer, persona-adjusted
    assert seen["belief.formed"] > 0


def test_a_language_model_answers_once_per_group_of_alike_households() -> None:
    backend = Words()
    policy = EconAgentPolicy(client=LLMClient(backend))  # type: ignore[arg-type]
    run(policy, ticks=3, n=30)
    usage = policy.usage()["purposes"]
    assert 0 < usage["decision"]["calls"] < 3 * 30  # alike households share a call
    assert policy.counts["llm.grouped"] > 0
    alone = EconAgentPolicy(client=LLMClient(Words()), econ=EconAgentConfig(group=False),  # type: ignore[arg-type]
                            calls=ModelCallConfig(reuse_months=1))  # fmt: skip
    run(alone, ticks=3, n=30)
    assert alone.usage()["purposes"]["decision"]["calls"] == 3 * 30
    quarterly = EconAgentPolicy(client=LLMClient(Words()), econ=EconAgentConfig(group=False))  # type: ignore[arg-type]
    run(quarterly, ticks=3, n=30)
    assert quarterly.usage()["purposes"]["decision"]["calls"] == 30  # each its own answer, kept for 3 months


def test_only_a_job_lost_or_found_moves_the_persona_through_labour() -> None:
    policy = EconAgentPolicy(client=LLMClient(OfflineBackend()))
    model, _, _ = run(policy, ticks=1, n=5)
    persona = model.personas[0]
    policy.ledger.expected_income.clear()
    assert (
        policy.reflect_step.income_outcome(2, 0, 3000.0, 9000.0, True, persona) is None
    )  # sets the expectation
    # no change of job status (the caller passes wanted=False): a 60 % swing in pay is no surprise
    assert policy.reflect_step.income_outcome(3, 0, 1200.0, 9000.0, False, persona) is None
    lost = policy.reflect_step.income_outcome(4, 0, 0.0, 9000.0, True, persona)  # job lost while wanting work
    assert lost is not None and lost.optimism < persona.optimism
