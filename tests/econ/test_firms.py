"""Cognitive firms: persona- and state-dependent decisions, guardrails, construction delay, events, households'
perception of firm news, evolution from outcomes, the CLI run and its determinism."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.econ.collect import macro_frame
from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.firms import board as board_module
from psychoagent.econ.firms.archetypes import firm_persona
from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.firms.decision import FirmDecision, Perceived, answer_firm_decision, heuristic_decision
from psychoagent.econ.firms.guard import Limits, guard_decision
from psychoagent.econ.firms.state import Plant
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.run import run_files, simulate
from psychoagent.eval.rundata import RunData

CFG = FirmsConfig(mode="cognitive")
OPENING = EconomyConfig(burn_in=0)
"""No burn-in: the board's timing is checked from the opening balances, month by month."""
CEO, CONSERVATIVE = firm_persona("startup CEO"), firm_persona("conservative manufacturer")


def seen(**kw: object) -> Perceived:
    """A firm's quarter with demand at capacity, little stock, a small margin and room to hire."""
    base = Perceived(tick=12, firm="tech", capacity=1000.0, building=0.0, demand_ratio=0.98, utilisation=0.95,
                     labour=1.1, demand_growth=0.0, market_gap=0.0, inventory_months=0.2, cash=5000.0, budget=20000.0,
                     plant_cost=40000.0, margin=0.05,
                     below_cost_quarters=0, idle_quarters=0, interest_rate=0.03, input_gap=None, lesson=0.0,
                     lessons=0)  # fmt: skip
    return replace(base, **kw)  # type: ignore[arg-type]


def limits(**kw: object) -> Limits:
    base = Limits(price=10.0, unit_cost=9.0, below_cost=0, cash=5000.0, budget=20000.0, capacity=1000.0,
                  min_capacity=300.0, plant_cost=60.0, reserve=1000.0, price_floor=1.0)  # fmt: skip
    return replace(base, **kw)  # type: ignore[arg-type]


def test_decisions_vary_with_persona() -> None:
    ceo, cautious = heuristic_decision(seen(), CEO, CFG), heuristic_decision(seen(), CONSERVATIVE, CFG)
    assert ceo.expand > 0 and cautious.expand == 0
    assert ceo.rnd_share > cautious.rnd_share
    assert ceo.expected_growth > cautious.expected_growth


def test_wages_follow_the_labour_gap_and_prices_the_demand_gap() -> None:
    persona = firm_persona("established manufacturer")
    scarce = heuristic_decision(seen(market_gap=-0.2, labour_gap=0.2), persona, CFG)
    assert scarce.price_change < 0 < scarce.wage_change  # goods unsold, jobs unfilled
    idle = heuristic_decision(seen(market_gap=0.2, labour_gap=-0.2), persona, CFG)
    assert idle.wage_change < 0 < idle.price_change
    goods = CFG.model_copy(update={"wage_labour_weight": 0.0})
    assert heuristic_decision(seen(market_gap=0.2, labour_gap=-0.2), persona, goods).wage_change > 0


def test_decisions_vary_with_state() -> None:
    persona = firm_persona("established manufacturer")
    boom = heuristic_decision(seen(demand_ratio=1.3, market_gap=0.3), persona, CFG)
    slump = heuristic_decision(
        seen(demand_ratio=0.5, utilisation=0.5, market_gap=-0.3, idle_quarters=2), persona, CFG
    )
    assert boom.expand > 0 and boom.price_change > 0 and boom.production_target == 1.0
    assert slump.expand == 0 and slump.close > 0 and slump.price_change < 0
    assert slump.production_target < boom.production_target
    # a slump of one quarter keeps the plants; stock piling up lowers the plan; dear credit defers building
    assert heuristic_decision(seen(demand_ratio=0.5), persona, CFG).close == 0
    stocked = heuristic_decision(seen(demand_ratio=0.9, inventory_months=3.0), persona, CFG)
    assert (
        stocked.production_target < heuristic_decision(seen(demand_ratio=0.9), persona, CFG).production_target
    )
    assert heuristic_decision(seen(demand_ratio=1.05, interest_rate=0.15), persona, CFG).expand == 0
    # no workers to staff a plant: no plant, whatever the demand
    assert heuristic_decision(seen(demand_ratio=1.3, labour=1.0), CEO, CFG).expand == 0
    # cheap steel is bought ahead, dear steel is not
    assert heuristic_decision(seen(input_gap=-0.1), persona, CFG).input_months > 0
    assert heuristic_decision(seen(input_gap=0.1), persona, CFG).input_months == 0


def test_cautious_firms_build_less_on_credit() -> None:
    # cash 5000 of a 20000 budget: the CEO dares most of the credit, the conservative firm little of it
    broke = seen(demand_ratio=1.3, cash=2000.0, budget=20000.0, plant_cost=40000.0)
    assert heuristic_decision(broke, CEO, CFG).expand > heuristic_decision(broke, CONSERVATIVE, CFG).expand
    assert heuristic_decision(replace(broke, cash=-5000.0, budget=500.0), CEO, CFG).expand == 0


def test_memories_of_failed_expansions_defer_the_next() -> None:
    assert heuristic_decision(seen(), CEO, CFG).expand > 0
    assert heuristic_decision(seen(lesson=-0.2, lessons=2), CEO, CFG).expand == 0


def test_guardrail_rejects_expansion_beyond_cash_and_credit() -> None:
    d = FirmDecision(production_target=1.0, expand=0.3)  # 0.3 x 1000 x 60 = 18000
    assert guard_decision(d, limits(budget=20000.0), CFG).decision.expand == 0.3
    g = guard_decision(d, limits(budget=10000.0), CFG)
    assert g.decision.expand == 0 and g.plant_cost == 0
    (note,) = g.notes
    assert note.outcome == "rejected" and note.rule == "expansion_budget"
    assert "18000" in note.reason and "10000" in note.reason


def test_guardrail_rejects_a_third_quarter_below_cost() -> None:
    cut = FirmDecision(production_target=1.0, price_change=-0.05)  # 10 -> 9.5 < unit cost 9.8
    for streak in (0, 1):
        g = guard_decision(cut, limits(unit_cost=9.8, below_cost=streak), CFG)
        assert g.decision.price_change == -0.05 and not g.notes
    g = guard_decision(cut, limits(unit_cost=9.8, below_cost=2), CFG)
    assert 10.0 * (1 + g.decision.price_change) == pytest.approx(9.8)
    assert [n.rule for n in g.notes] == ["below_cost"] and "3 quarters running" in g.notes[0].reason
    above = guard_decision(FirmDecision(production_target=1.0, price_change=0.01), limits(below_cost=5), CFG)
    assert not above.notes


def test_guardrail_trims_closures_and_purchases() -> None:
    g = guard_decision(FirmDecision(production_target=0.5, close=0.9), limits(min_capacity=300.0), CFG)
    assert g.decision.close == pytest.approx(0.7) and g.notes[0].rule == "min_capacity"
    buy = FirmDecision(production_target=1.0, input_months=2.0)
    g = guard_decision(buy, limits(input_available=50.0, input_price=2.0, input_need=100.0), CFG)
    assert g.input_units == 50.0 and g.notes[0].rule == "input_budget"


def test_offline_model_answers_with_the_heuristic() -> None:
    p, persona = seen(demand_ratio=1.2), CEO
    data = {
        "perceived": p.data(),
        "persona": persona.model_dump(mode="json"),
        "config": CFG.model_dump(mode="json"),
    }
    assert FirmDecision.model_validate(answer_firm_decision(data)) == heuristic_decision(p, persona, CFG)
    assert answer_firm_decision({"perceived": {"tick": 1}}) is None


def _forced(monkeypatch: pytest.MonkeyPatch, firm: str, **decision: float) -> None:
    """Make every decision of `firm` the given one (others keep the heuristic)."""
    real = board_module.heuristic_decision

    def fake(p: Perceived, persona, cfg):  # type: ignore[no-untyped-def]
        return FirmDecision(production_target=1.0, **decision) if p.firm == firm else real(p, persona, cfg)

    monkeypatch.setattr(board_module, "heuristic_decision", fake)


def test_a_plant_takes_months_and_money_before_it_adds_capacity(monkeypatch: pytest.MonkeyPatch) -> None:
    _forced(monkeypatch, "tech", expand=0.1)
    model = EconomyModel(OPENING, seed=2, households=30, firms="cognitive")
    events = []
    model.bus.subscribe("firm", events.append)
    model.run(10)
    cap = macro_frame(model).set_index("tick")["capacity_tech"]
    started = [e for e in events if e.type == "firm.expansion_started" and e.source == "firm:tech"]
    assert started[0].tick == 3 and started[0].payload["ready"] == 3 + CFG.construction_months
    assert cap.loc[3:8].nunique() == 1 or np.allclose(cap.loc[3:8], cap.loc[3], rtol=0.05)  # R&D only
    online = [e for e in events if e.type == "firm.expanded" and e.source == "firm:tech"]
    assert online[0].tick == 9 and online[0].payload["started"] == 3
    assert cap.loc[9] > cap.loc[8] * 1.09
    plant_cost = started[0].payload["cost"]
    assert online[0].payload["cost"] == pytest.approx(plant_cost) and plant_cost > 0


def test_a_plant_started_in_the_burn_in_comes_online_on_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The firms' clock runs on when the model's restarts: a plant started in month 3 of the burn-in comes online
    six months later, not in month 9 of the run (a steel plant of seed 12 stayed under construction for 60 months
    and blocked every later expansion)."""
    from psychoagent.econ.start import start_clock

    _forced(monkeypatch, "tech", expand=0.1)
    model = EconomyModel(OPENING, seed=2, households=30, firms="cognitive")
    burn_in, started = 4, 3  # the plant is started at month 3's decision
    model.run(burn_in)
    board = model.firm_board
    assert board is not None and board.states[2].plants
    start_clock(model)
    events = []
    model.bus.subscribe("firm", events.append)
    model.run(CFG.construction_months)
    online = [e for e in events if e.type == "firm.expanded" and e.source == "firm:tech"]
    assert (
        online and online[0].tick == started + CFG.construction_months - burn_in
    )  # month 5 of the new clock
    assert online[0].payload["started"] == started - burn_in  # in the model's months: before month 0


def test_firm_actions_are_events_and_households_perceive_them(monkeypatch: pytest.MonkeyPatch) -> None:
    _forced(monkeypatch, "steel", expand=0.1)
    model = EconomyModel(OPENING, seed=4, households=30, firms="cognitive", policy="cognitive")
    events = []
    model.bus.subscribe("*", events.append)
    model.run(13)
    kinds = {e.type for e in events if e.type.startswith("firm.")}
    assert {"firm.decided", "firm.priced", "firm.wage_set", "firm.hired", "firm.persona_evolved",
            "firm.expansion_started", "firm.expanded"} <= kinds  # fmt: skip
    news = [e for e in events if e.type == "news.published" and e.source.startswith("firm:")]
    assert news and all("producer" in e.payload["headline"] for e in news)
    assert min(e.tick for e in news) == 4  # decided in month 3, read in month 4
    mind = model.policy.kit.population  # type: ignore[attr-defined]
    heard = [h.unit.content for h in mind.public.recall("producer new plant capacity supply", k=5)]
    assert any("Steel producer" in text for text in heard), heard
    beliefs = [b.text for a in model.policy.kit.minds().values() for b in a.semantic.beliefs.values()]  # type: ignore[attr-defined]
    steel = [text for text in beliefs if "Steel producer" in text]
    assert steel and all("lower steel prices more likely" in text for text in steel), steel[:3]


def test_a_failed_expansion_lowers_risk_appetite_and_is_remembered() -> None:
    model = EconomyModel(OPENING, seed=1, households=20, firms="cognitive")
    model.run(3)
    board = model.firm_board
    assert board is not None
    f, s = model.firms[2], board.states[2]
    before = s.persona.risk_preference
    flop = Plant(start=1, ready=2, capacity=100.0, cost=1000.0, expected_growth=0.2,
                 output_before=s.mean("produced") * 1.3, stake=0.5)  # fmt: skip
    board._review(3, f, s, flop)
    board._remember()
    assert s.persona.risk_preference < before and s.lessons[-1][1] < 0
    assert s.memory is not None
    hits = s.memory.recall("expansion reviewed", k=3, where={"metadata.kind_of": "expansion_outcome"})
    assert hits and "failure" in hits[0].unit.content
    assert board.perceive(3, f, s).lessons == 1
    assert board.perceive(3 + CFG.lesson_months + 1, f, s).lessons == 0  # old lessons fade


@pytest.mark.parametrize("firms", ["cognitive", "llm"])
def test_money_is_conserved_with_cognitive_firms(firms: str) -> None:
    model = EconomyModel(seed=7, households=30, firms=firms)
    model.run(26)
    df = macro_frame(model)
    start = df["total_money"].iloc[0] - df["money_created"].iloc[0]
    np.testing.assert_allclose(df["total_money"], start + df["money_created"], rtol=1e-10)
    for name in model.sector_names:
        inv = df[f"inventory_{name}"].to_numpy()
        flow = df[f"produced_{name}"].to_numpy() - df[f"sold_{name}"].to_numpy()
        opening = model.history[0][f"inventory_{name}"]  # the stock the burn-in left
        np.testing.assert_allclose(inv, np.concatenate([[opening], inv[:-1]]) + flow, rtol=1e-9, atol=1e-6)
        assert (df[f"produced_{name}"] <= df[f"capacity_{name}"] * (1 + 1e-9)).all()


def test_offline_llm_firms_decide_as_the_heuristic() -> None:
    runs = {}
    for firms in ("cognitive", "llm"):
        model = EconomyModel(seed=5, households=20, firms=firms)
        model.run(9)
        runs[firms] = macro_frame(model)
        assert model.firm_board is not None
    pd.testing.assert_frame_equal(runs["cognitive"], runs["llm"])


def test_llm_firms_record_their_model(tmp_path) -> None:
    model = simulate(tmp_path, agents=10, ticks=6, seed=2, policy="persona", firms="llm")
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["firms"] == "llm" and config["firms_model"] == "offline" and config["llm"] is None
    usage = json.loads((tmp_path / "llm_usage.json").read_text())
    assert model.firm_board is not None and "decision" in json.dumps(usage)
    prompt = model.firm_board.client.backend.requests[-1].messages[-1]["content"]
    assert "startup" in prompt or "manufacturer" in prompt


def test_cli_run_with_cognitive_firms_is_reproducible(tmp_path) -> None:
    args = ["simulate", "--agents", "20", "--ticks", "24", "--seed", "3", "--firms", "cognitive", "--policy",
            "persona"]  # fmt: skip
    for name in ("a", "b"):
        res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / name)])
        assert res.exit_code == 0, res.output
    assert run_files(tmp_path / "a") == run_files(tmp_path / "b")
    for name in run_files(tmp_path / "a"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    run = RunData.open(tmp_path / "a")
    assert len(run.events(prefix="firm.")) > 50
    macro = run.macro
    caps = macro[[c for c in macro.columns if c.startswith("capacity_")]]
    assert caps.shape[1] == 3 and (caps.nunique() > 1).any()
    assert json.loads((tmp_path / "a" / "config.json").read_text())["firms"] == "cognitive"


def test_bad_firms_mode_is_refused(tmp_path) -> None:
    res = CliRunner().invoke(
        app, ["simulate", "--agents", "5", "--ticks", "1", "--out", str(tmp_path), "--firms", "oracle"]
    )
    assert res.exit_code == 2 and "--firms must be one of" in res.output
    with pytest.raises(ValueError, match="mode"):
        EconomyModel(seed=1, households=5, firms="oracle")
    with pytest.raises(ValueError, match="unknown firm archetype"):
        firm_persona("pirate")


def test_firms_from_a_scenario_and_config_errors() -> None:
    from pydantic import ValidationError

    from psychoagent.econ.scenario import Scenario

    scen = Scenario.model_validate(
        {"economy": {"firms": {"mode": "cognitive", "personas": {"steel": "startup CEO"}}}}
    )
    model = EconomyModel(seed=1, households=10, scenario=scen)
    assert model.firm_board is not None and model.firm_board.states[1].persona.name == "startup CEO"
    assert EconomyModel(seed=1, households=10, scenario=scen, firms="rule").firm_board is None
    with pytest.raises(ValidationError, match=r"firms.personas\['steel'\]: unknown firm archetype"):
        FirmsConfig(personas={"steel": "pirate"})


def test_rule_firms_are_unchanged(tmp_path) -> None:
    simulate(tmp_path / "a", agents=10, ticks=3, seed=1, policy="persona")
    macro = RunData.open(tmp_path / "a").macro
    assert not any(c.startswith("capacity_") for c in macro.columns)
    assert json.loads((tmp_path / "a" / "config.json").read_text())["firms"] == "rule"


def test_prices_follow_the_demand_gap_between_decisions() -> None:
    cfg = OPENING.model_copy(update={"firms": FirmsConfig(monthly_rule=True)})
    model = EconomyModel(cfg, seed=3, households=30, firms="cognitive")
    moved = 0
    for _ in range(8):
        before = [f.price for f in model.firms]
        model.step()
        if model.tick % model.config.firms.decide_every:  # a month without a decision
            moved += sum(abs(f.price - b) > 1e-12 for f, b in zip(model.firms, before, strict=True))
            board = model.firm_board
            assert board is not None
            for f in model.firms:
                s = board.states[f.index]
                assert f.price == s.price >= s.price_floor and f.wage == s.wage
    assert moved > 0
