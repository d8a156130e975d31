"""LLM appraiser (valid, repaired, retried, fallback counted) and stabilisation (vote, bands, rules, schemes)."""

from __future__ import annotations

import json

import pytest

from psychoagent.affect import (
    HeuristicAppraiser,
    LLMAppraiser,
    StabilisedAppraiser,
    affect_schema,
    get_scheme,
    majority,
    quantise,
)
from psychoagent.types import Affect

GOOD = {"valence": -1, "arousal": 2, "conflict_intensity": 4, "conflict_parties": ["goal A", "instruction B"],
        "brief_reason": "The new budget breaks the limit."}  # fmt: skip


class Scripted:
    """A minimal chat model: answers from a list, records the messages it got."""

    def __init__(self, answers: list[str]) -> None:
        self.answers, self.seen = list(answers), []

    def complete(self, messages, **kwargs):  # type: ignore[no-untyped-def]
        self.seen.append(messages)
        return self.answers.pop(0)


def test_valid_answer_is_used_and_prompt_is_the_seeds() -> None:
    model = Scripted([json.dumps(GOOD)])
    appraiser = LLMAppraiser(model)
    affect = appraiser.appraise("The user raised the budget.", ["Keep budget under 2000"])
    assert (affect.valence, affect.arousal, affect.conflict_intensity) == (-1, 2, 4)
    prompt = model.seen[0][0]["content"]
    assert "conflict_intensity" in prompt and "Keep budget under 2000" in prompt
    assert appraiser.stats["ok"] == 1 and appraiser.stats["fallbacks"] == 0


def test_malformed_json_is_repaired() -> None:
    broken = "```json\n{'valence': 1, 'arousal': 1, 'conflict_intensity': 0, 'conflict_parties': [], 'brief_reason': 'fine'"
    appraiser = LLMAppraiser(Scripted([broken]))
    assert appraiser.appraise("ok").valence == 1
    assert appraiser.stats["repaired"] == 1


def test_out_of_range_retries_then_succeeds() -> None:
    bad = json.dumps({**GOOD, "valence": 1000})
    appraiser = LLMAppraiser(Scripted([bad, json.dumps(GOOD)]))
    assert appraiser.appraise("x").valence == -1
    assert appraiser.stats["retries"] == 1 and appraiser.stats["fallbacks"] == 0


def test_invalid_output_falls_back_to_heuristic_and_is_counted() -> None:
    appraiser = LLMAppraiser(Scripted(["no json here", "[1, 2]"]))
    text, goal = "The user raised the budget from 1000 to 3000 yuan.", "Keep the total budget under 2000 yuan"
    affect = appraiser.appraise(text, [goal])
    expected = HeuristicAppraiser().appraise(text, [goal])
    assert affect.conflict_intensity == expected.conflict_intensity >= 3
    assert "fallback" in affect.reason
    assert appraiser.stats["fallbacks"] == 1 and appraiser.stats["calls"] == 2


def test_backend_error_falls_back() -> None:
    def broken(messages):  # type: ignore[no-untyped-def]
        raise ConnectionError("down")

    appraiser = LLMAppraiser(broken)
    assert appraiser.appraise("The build failed!").valence < 0
    assert appraiser.stats["errors"] == 2 and appraiser.stats["fallbacks"] == 1


def test_works_with_the_project_language_model() -> None:
    from psychoagent.llm import LLMClient, OfflineBackend

    def rule(messages, schema):  # type: ignore[no-untyped-def]
        return "garbage" if any("build failed" in m["content"] for m in messages) else json.dumps(GOOD)

    appraiser = LLMAppraiser(LLMClient(OfflineBackend(rule=rule)))  # schema-constrained structured() path
    assert appraiser.appraise("The user raised the budget.").conflict_intensity == 4
    assert appraiser.appraise("The build failed!").valence < 0  # from the heuristic fallback
    assert appraiser.stats["ok"] == 1 and appraiser.stats["fallbacks"] == 1 and appraiser.stats["errors"] == 2
    assert affect_schema()["properties"]["valence"]["enum"] == [-2, -1, 0, 1, 2]


def test_majority_vote_and_tie_to_calmer() -> None:
    a = Affect(valence=-2, arousal=3, conflict_intensity=4, conflict_parties=["x", "y"], reason="a")
    b = Affect(valence=-1, arousal=2, conflict_intensity=4, conflict_parties=["x", "y"], reason="b")
    c = Affect(valence=-1, arousal=3, conflict_intensity=0, reason="c")
    voted = majority([a, b, c])
    assert (voted.valence, voted.arousal, voted.conflict_intensity) == (-1, 3, 4)
    assert majority([a, b]).valence == -1


def test_quantise_snaps_to_bands() -> None:
    affect = Affect(valence=2, arousal=2, conflict_intensity=3)
    q = quantise(affect, (-1, 0, 1), (1, 3), (0, 2, 4))
    assert (q.valence, q.conflict_intensity) == (1, 2) and q.arousal in (1, 3)


def test_stabilised_is_stable_and_applies_scheme_rules() -> None:
    class Noisy:
        def __init__(self, v: int) -> None:
            self.v = v

        def appraise(self, event, goals=(), context=None):  # type: ignore[no-untyped-def]
            return Affect(valence=self.v, arousal=1)

    stab = StabilisedAppraiser([Noisy(1), Noisy(1), Noisy(2)])
    assert stab.appraise("x").valence == 1
    npc = StabilisedAppraiser([Noisy(1)], scheme="game_npc")
    betrayal = npc.appraise("The player betrayed the guild.")
    assert betrayal.valence == -2 and betrayal.arousal == 3 and betrayal.conflict_intensity >= 3
    assert StabilisedAppraiser([Noisy(1)]).appraise("The player betrayed the guild.").valence == 1


def test_label_scheme_changes_what_negative_means() -> None:
    text = "The customer asked to escalate the ticket to a manager."
    general = HeuristicAppraiser().appraise(text)
    service = HeuristicAppraiser(scheme="customer_service").appraise(text)
    assert service.valence < general.valence or service.valence < 0
    assert service.arousal >= general.arousal
    with pytest.raises(ValueError, match="choose one of"):
        get_scheme("nope")
