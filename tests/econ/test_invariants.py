"""Invariants of seeded runs: goods and money conservation, budget neutrality, floors, rate >= 0, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.econ import model as econ_model
from psychoagent.econ.config import EconomyConfig, MarketConfig
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.run import run_files, simulate
from psychoagent.eval.rundata import RunData

from .conftest import run, scenario

SHOCKS = [
    {"kind": "supply_shock", "sector": "steel", "start": 5, "duration": 6, "productivity_factor": 0.3},
    {"kind": "demand_shock", "start": 8, "duration": 6, "factor": 0.5},
    {"kind": "regulation", "sector": "tech", "start": 10, "offer_cap": 0.5},
    {"kind": "policy_change", "start": 12, "duration": 6, "tax_scale": 1.5, "inflation_target": 0.03},
    {"kind": "rate_shock", "start": 14, "delta": -0.5},
]


@pytest.mark.parametrize(
    ("policy", "firms"), [("persona", "rule"), ("composite", "rule"), ("persona", "cognitive")]
)
def test_goods_are_conserved(policy: str, firms: str) -> None:
    model, df = run(ticks=30, policy=policy, scenario=scenario(shocks=SHOCKS), firms=firms)
    for name in model.sector_names:
        inv = df[f"inventory_{name}"].to_numpy()
        prev = np.concatenate([[model.history[0][f"inventory_{name}"]], inv[:-1]])  # the burn-in's stock
        flow = df[f"produced_{name}"].to_numpy() - df[f"sold_{name}"].to_numpy()
        np.testing.assert_allclose(inv, prev + flow, rtol=1e-9, atol=1e-6)
        assert (inv >= -1e-6).all()
        assert (df[f"sold_{name}"] <= df[f"demand_{name}"] + 1e-6).all()


@pytest.mark.parametrize(
    ("policy", "firms"), [("persona", "rule"), ("composite", "rule"), ("persona", "cognitive")]
)
def test_money_is_conserved_when_borrowers_pay_the_interest(policy: str, firms: str) -> None:
    paid = EconomyConfig.model_validate({"bank": {"interest": "paid"}})
    model, df = run(ticks=26, policy=policy, scenario=scenario(shocks=SHOCKS), firms=firms, config=paid)
    np.testing.assert_allclose(df["total_money"], df["total_money"].iloc[0], rtol=1e-10)
    assert (df["money_created"] == 0).all() and model.money_created == 0.0


@pytest.mark.parametrize(("policy", "firms"), [("persona", "rule"), ("composite", "rule")])
def test_created_interest_is_the_only_new_money(policy: str, firms: str) -> None:
    # from the opening balances and the opening rate (3 %): the first two yearly credits are not zero
    created_cfg = EconomyConfig.model_validate({"bank": {"interest": "created"}, "burn_in": 0})
    model, df = run(
        ticks=26, policy=policy, scenario=scenario(shocks=SHOCKS), firms=firms, config=created_cfg
    )
    start = df["total_money"].iloc[0] - df["money_created"].iloc[0]
    np.testing.assert_allclose(df["total_money"], start + df["money_created"], rtol=1e-10)
    created = df["money_created"].to_numpy()
    # interest is credited yearly (EconAgent): created money changes only at ticks 12 and 24
    changes = df["tick"].to_numpy()[np.flatnonzero(np.diff(np.concatenate([[0.0], created])))]
    assert set(changes) <= {12, 24} and created[-1] > 0
    assert model.total_money() == pytest.approx(start + model.money_created, rel=1e-10)


def test_unemployment_insurance_moves_the_government_balance_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Benefits less contributions (and interest on its overdraft) are the government's deficit; total money is
    unchanged by them."""
    no_rule = {"balance_speed": 0.0, "debt_speed": 0.0}  # the debt rule would move the lump sum too
    no_bills = {"bills": {"semi_elasticity": 0.0}}  # interest on households' bills would move the balance too
    cfg = EconomyConfig.model_validate({"trading": {"bonds": {"enabled": False}}, "fiscal": no_rule,
                                        "bank": no_bills})  # fmt: skip
    model, _ = run(ticks=11, scenario=scenario(shocks=SHOCKS), config=cfg)
    start, balance, created, flows = model.total_money(), model.gov_balance, model.money_created, {}
    owed = model.bank.gov_owed  # month 12 settles the interest on the government's overdraft with the bank
    real = econ_model.incomes

    def spy(m: EconomyModel, f: dict[str, np.ndarray], t: int) -> None:
        real(m, f, t)
        flows.update(f)

    monkeypatch.setattr(econ_model, "incomes", spy)
    model.run(1)
    benefit = flows["benefit"]
    wages = flows["wages"]
    assert np.all(benefit[wages > 0] == 0)
    expected = balance + model.config.benefit.contribution * wages.sum() - benefit.sum() - owed
    assert model.gov_balance == pytest.approx(expected, rel=1e-9, abs=1e-6)
    assert benefit.sum() > 0  # the demand shock of months 8-13 leaves households unhired
    assert model.total_money() == pytest.approx(start + model.money_created - created, rel=1e-10)


def test_taxes_are_budget_neutral_every_month() -> None:
    no_bonds = EconomyConfig.model_validate(
        {
            "trading": {"bonds": {"enabled": False}},
            "benefit": {"replacement": 0.0},
            "bank": {"bills": {"semi_elasticity": 0.0}},
        }
    )  # coupons and interest on bills are spending; unemployment insurance runs deficits and surpluses
    model, df = run(ticks=20, scenario=scenario(shocks=SHOCKS), config=no_bonds)
    events = []
    model.bus.subscribe("tax.collected", events.append)
    model.run(4)
    assert (df["tax_revenue"] > 0).all()
    np.testing.assert_allclose(df["gov_balance"], 0.0, atol=1e-6 * df["tax_revenue"].max())
    for e in events:
        assert e.payload["redistributed"] == pytest.approx(e.payload["revenue"], rel=1e-12)


def test_prices_and_wages_never_below_floor() -> None:
    cfg = EconomyConfig(market=MarketConfig(initial_wage=1.2, price_floor=1.0, wage_floor=1.0))
    slump = scenario(shocks=[{"kind": "demand_shock", "start": 2, "factor": 0.05}])
    model, df = run(ticks=40, config=cfg, scenario=slump, policy="composite")
    for name in model.sector_names:
        assert (df[f"price_{name}"] >= 1.0).all() and (df[f"wage_{name}"] >= 1.0).all()
    assert any(f.price == pytest.approx(1.0) or f.wage == pytest.approx(1.0) for f in model.firms)


def test_interest_rate_never_negative() -> None:
    cut = scenario(shocks=[{"kind": "rate_shock", "start": 3, "delta": -0.5}])
    _model, df = run(ticks=24, scenario=cut)
    assert (df["interest_rate"] >= 0).all()
    assert df.loc[df["tick"] == 3, "interest_rate"].item() == 0.0


def test_same_seed_gives_identical_files(tmp_path) -> None:
    kw = {"agents": 20, "ticks": 14, "seed": 3, "scenario": "steel_shock"}
    simulate(tmp_path / "a", **kw)  # type: ignore[arg-type]
    simulate(tmp_path / "b", **kw)  # type: ignore[arg-type]
    simulate(tmp_path / "c", **{**kw, "seed": 4})  # type: ignore[arg-type]
    assert run_files(tmp_path / "a") == run_files(tmp_path / "b")
    for name in run_files(tmp_path / "a"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert (tmp_path / "a" / "macro.parquet").read_bytes() != (tmp_path / "c" / "macro.parquet").read_bytes()


def test_run_files_have_the_documented_columns(tmp_path) -> None:
    import json

    simulate(tmp_path, agents=12, ticks=3, seed=1, policy="composite", llm="http://localhost:8000/v1")
    run = RunData.open(tmp_path)
    macro = run.macro
    for col in ("tick", "price_level", "inflation", "wage", "wage_inflation", "unemployment", "nominal_gdp",
                "real_gdp", "interest_rate", "tax_revenue", "gini"):  # fmt: skip
        assert col in macro.columns
    assert macro["tick"].tolist() == [1, 2, 3]
    agents = run.agents
    assert agents is not None
    assert len(agents) == 36
    for col in ("tick", "agent_id", "wealth", "income", "worked", "consumption", "risk_preference", "optimism",
                "learning_rate", "social_tendency", "alloc_consume"):  # fmt: skip
        assert col in agents.columns
    config = json.loads((tmp_path / "config.json").read_text())
    assert (
        config["llm"] == "http://localhost:8000/v1"
        and config["seed"] == 1
        and config["policy"] == "composite"
    )
    first = next(run.iter_events())
    assert {"tick", "type", "payload"} <= set(first) and first["seq"] == 0


def test_household_events_and_bad_numbers_in_config(tmp_path) -> None:
    import json

    from pydantic import ValidationError

    from psychoagent.econ.model import EconomyModel

    model = EconomyModel(
        EconomyConfig(households=4, household_events=True), seed=1, events_path=tmp_path / "e.jsonl"
    )
    model.run(2)
    model.close()
    events = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    per_household = [
        e for e in events if e["type"] == "action.result" and e["source"].startswith("household:")
    ]
    assert len(per_household) == 8 and [e["seq"] for e in events] == list(range(len(events)))
    for bad in ({"initial_wage": float("nan")}, {"initial_wage": float("inf")}, {"price_step": -0.1}):
        with pytest.raises(ValidationError):
            MarketConfig(**bad)  # type: ignore[arg-type]


def test_library_warnings_go_to_run_log_not_the_console(tmp_path, capsys) -> None:
    import logging

    from psychoagent.econ.run import run_log

    with run_log(tmp_path):
        logging.getLogger("psychoagent.memory.monitor").warning("affect drift in 'household:1'")
    logging.getLogger("psychoagent.memory.monitor").info("after the run")
    assert "affect drift in 'household:1'" in (tmp_path / "run.log").read_text()
    assert "after the run" not in (tmp_path / "run.log").read_text()
    assert "affect drift" not in capsys.readouterr().err
