"""Heuristic appraisal: acceptance examples, valence/arousal/conflict directions, CLI, outcome appraisal."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from psychoagent.affect import HeuristicAppraiser, OutcomeEvent, appraise_outcome, extract_slots
from psychoagent.cli import app

EN = ("The user raised the budget from 1000 to 3000 yuan.", "Keep the total budget under 2000 yuan")
ZH = ("用户把预算从1000元提高到3000元。", "总预算控制在2000元以内")


@pytest.fixture(scope="module")
def appraiser() -> HeuristicAppraiser:
    return HeuristicAppraiser()


@pytest.mark.parametrize(("text", "goal"), [EN, ZH])
def test_budget_example_conflicts_with_goal(appraiser: HeuristicAppraiser, text: str, goal: str) -> None:
    affect = appraiser.appraise(text, [goal])
    assert affect.conflict_intensity >= 3
    assert any(goal.rstrip("。") in p and p.startswith("goal:") for p in affect.conflict_parties)
    assert any("3000" in p and p.startswith("new instruction:") for p in affect.conflict_parties)
    assert affect.valence < 0 and affect.reason.endswith(".")


@pytest.mark.parametrize(("text", "goal"), [EN, ZH])
def test_no_conflict_without_goal_or_within_bounds(
    appraiser: HeuristicAppraiser, text: str, goal: str
) -> None:
    assert appraiser.appraise(text).conflict_intensity == 0
    within = text.replace("3000", "1500")
    assert appraiser.appraise(within, [goal]).conflict_intensity == 0


def test_cli_acceptance_both_languages() -> None:
    runner = CliRunner()
    for text, goal in (EN, ZH):
        result = runner.invoke(app, ["appraise", text, "--goal", goal])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert data["conflict_intensity"] >= 3 and len(data["conflict_parties"]) == 2


def test_cli_batch_keeps_order_and_ids(tmp_path) -> None:
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [{"id": "a", "text": EN[0], "goals": [EN[1]]}, {"text": "All tests passed, great work!"},
             {"id": 7, "text": ZH[0], "goals": [ZH[1]]}]  # fmt: skip
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["appraise", "--input", str(src), "--output", str(dst)])
    assert result.exit_code == 0, result.output
    out = [json.loads(x) for x in dst.read_text(encoding="utf-8").splitlines()]
    assert [o["id"] for o in out] == ["a", None, 7]
    assert out[0]["conflict_intensity"] >= 3 and out[1]["valence"] > 0 and out[2]["conflict_intensity"] >= 3


def test_cli_bad_line_names_field(tmp_path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["appraise", "--input", str(src)])
    assert result.exit_code == 2 and "text" in result.output


@pytest.mark.parametrize(
    ("text", "sign"),
    [("Great news: the deployment succeeded and the client is happy.", 1),
     ("The payment failed and the customer is furious.", -1),
     ("今天真开心，项目成功了！", 1), ("任务失败了，客户非常生气。", -1), ("会议室在三楼。", 0)],
)  # fmt: skip
def test_valence_direction(appraiser: HeuristicAppraiser, text: str, sign: int) -> None:
    valence = appraiser.appraise(text).valence
    assert (valence > 0) - (valence < 0) == sign


def test_chinese_negation_flips(appraiser: HeuristicAppraiser) -> None:
    assert appraiser.sentiment("项目成功了") > appraiser.sentiment("项目没有成功")


def test_arousal_rises_with_alarm(appraiser: HeuristicAppraiser) -> None:
    calm = appraiser.appraise("The user read the weekly report.")
    alarm = appraiser.appraise("URGENT: the server crashed unexpectedly!")
    assert calm.arousal == 1 and alarm.arousal == 3


def test_reversal_and_preference_conflicts(appraiser: HeuristicAppraiser) -> None:
    assert appraiser.appraise("Actually, let's do it differently.").conflict_intensity >= 2
    assert appraiser.appraise("其实我不要了。").conflict_intensity >= 2
    pref = appraiser.appraise("The user now wants a detailed report.", ["Keep answers concise"])
    assert pref.conflict_intensity >= 3


def test_slot_contradiction_with_memories(appraiser: HeuristicAppraiser) -> None:
    ctx = {"memories": ["Alice moved to Berlin."]}
    assert appraiser.appraise("Alice moved to Paris.", context=ctx).conflict_intensity >= 3
    assert appraiser.appraise("Bob moved to Paris.", context=ctx).conflict_intensity == 0


def test_slots() -> None:
    (slot,) = extract_slots("The user raised the budget from 1000 to 3000 yuan.")
    assert (slot.key, slot.number) == ("user|budget", 3000.0)
    assert extract_slots("The user confirmed buying headphones for 1500 yuan within the budget.") == []
    assert extract_slots("会议改到周五。")[0].value == "周五"
    laptop, coffee = (
        extract_slots("The price of the laptop is 5000 yuan."),
        extract_slots("The price of the coffee is 30."),
    )
    assert not laptop[0].contradicts(coffee[0])  # qualified by what it is the price of
    trip = extract_slots("Alice raised the trip budget to 800 dollars.")[0]
    assert (trip.attribute, trip.qualifier) == ("budget", "trip")
    assert trip.contradicts(extract_slots("Alice set the budget for the trip to 500 dollars.")[0])
    assert extract_slots("用户把设备预算定为2000元。")[0].contradicts(
        extract_slots("用户将预算提高到3000元。")[0]
    )


def test_task_failure_rule_forces_negative_alarm(appraiser: HeuristicAppraiser) -> None:
    affect = appraiser.appraise("The task failed.")
    assert affect.valence <= -1 and affect.arousal == 3


def test_outcome_appraisal_is_deterministic_and_directional() -> None:
    gain = OutcomeEvent(expected=100, actual=130, stake=0.3, description="return")
    loss = OutcomeEvent(expected=100, actual=70, stake=0.3, description="return")
    small = OutcomeEvent(expected=100, actual=70, stake=0.01, description="return")
    assert appraise_outcome(gain) == appraise_outcome(gain)
    assert appraise_outcome(gain).valence > 0 > appraise_outcome(loss).valence
    assert abs(appraise_outcome(small).valence) < abs(appraise_outcome(loss).valence)
    assert appraise_outcome(loss).arousal == 3 and appraise_outcome(loss).conflict_intensity >= 2
    exact = appraise_outcome(OutcomeEvent(expected=100, actual=100, stake=0.05))
    assert (exact.valence, exact.conflict_intensity) == (0, 0)
    cost = OutcomeEvent(expected=100, actual=130, stake=0.3, higher_is_better=False)
    assert appraise_outcome(cost).valence < 0
    assert HeuristicAppraiser().appraise({"expected": 1, "actual": 2, "stake": 0.5}).valence > 0
