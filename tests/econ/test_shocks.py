"""Shocks change what they should and publish news; scenarios load from files and built-ins."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from psychoagent.econ.scenario import builtin_scenarios, load_scenario, parse_scenario
from psychoagent.econ.shocks import Levers

from .conftest import run, scenario


def test_steel_supply_shock_raises_steel_and_consumer_goods_prices() -> None:
    shock = scenario(shocks=[{"kind": "supply_shock", "sector": "steel", "start": 7, "duration": 18,
                              "productivity_factor": 0.3}])  # fmt: skip
    _, base = run(ticks=24, households=40, seed=11, policy="composite")
    _model, hit = run(ticks=24, households=40, seed=11, policy="composite", scenario=shock)
    window = hit["tick"] >= 12
    assert (hit.loc[window, "price_steel"].mean()) > base.loc[window, "price_steel"].mean()
    assert (hit.loc[window, "price_consumer_goods"].mean()) > base.loc[window, "price_consumer_goods"].mean()
    assert (
        hit.loc[hit["tick"] >= 7, "shortage_steel"].sum()
        > base.loc[base["tick"] >= 7, "shortage_steel"].sum()
    )
    assert (hit["tick"] < 7).sum() and (
        hit[hit["tick"] < 7]["price_steel"] == base[base["tick"] < 7]["price_steel"]
    ).all()


def test_shock_publishes_news_into_the_snapshot() -> None:
    shock = scenario(shocks=[{"kind": "demand_shock", "start": 3, "duration": 2, "factor": 0.5}])
    model, _ = run(ticks=2, scenario=shock)
    news = []
    model.bus.subscribe("news.published", news.append)
    model.run(1)
    snap = model.snapshot()
    assert snap.tick == 3 and any(n.source == "shock:demand_shock" for n in snap.news)
    assert [n.sentiment < 0 for n in snap.news if n.source == "shock:demand_shock"] == [True]
    model.run(2)
    shock_news = [e for e in news if e.payload["source"] == "shock:demand_shock"]
    assert [e.tick for e in shock_news] == [3, 5]
    assert shock_news[1].payload["headline"].startswith("Ended:")


def test_levers_fold_and_undo() -> None:
    s = scenario(shocks=[
        {"kind": "supply_shock", "sector": "steel", "start": 2, "duration": 3, "productivity_factor": 0.5},
        {"kind": "regulation", "sector": "steel", "start": 3, "offer_cap": 0.4, "productivity_factor": 0.5},
        {"kind": "demand_shock", "start": 1, "duration": 1, "factor": 0.8},
    ])  # fmt: skip
    assert Levers.fold(s.shocks, 1).demand_factor == 0.8
    assert Levers.fold(s.shocks, 3).productivity["steel"] == 0.25
    assert Levers.fold(s.shocks, 3).offer_cap["steel"] == 0.4
    assert Levers.fold(s.shocks, 5).productivity["steel"] == 0.5  # supply shock over, regulation stays


def test_builtin_scenarios_load_and_match_sectors() -> None:
    names = builtin_scenarios()
    assert {"baseline", "steel_shock", "demand_slump", "tech_regulation", "policy_black_swan"} <= set(names)
    for name in names:
        scen = load_scenario(name)
        scen.check(scen.apply())


def test_scenario_files_toml_and_yaml(tmp_path) -> None:
    toml = tmp_path / "s.toml"
    toml.write_text('name = "t"\n[economy]\nhouseholds = 7\n[economy.bank]\ninitial_rate = 0.05\n'
                    '[[shocks]]\nkind = "rate_shock"\nstart = 2\ndelta = 0.01\n')  # fmt: skip
    s = load_scenario(toml)
    cfg = s.apply()
    assert cfg.households == 7 and cfg.bank.initial_rate == 0.05 and cfg.bank.natural_rate == 0.01
    yml = tmp_path / "s.yaml"
    yml.write_text("name: y\nshocks:\n  - kind: demand_shock\n    start: 4\n    factor: 1.2\n")
    assert load_scenario(yml).shocks[0].kind == "demand_shock"


def test_bad_scenarios_give_clear_errors(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"unknown scenario 'nope'.*baseline"):
        load_scenario("nope")
    with pytest.raises(ValueError, match="invalid scenario"):
        parse_scenario('[[shocks]]\nkind = "meteor"\nstart = 1\n', "toml")
    with pytest.raises(ValueError, match="not valid TOML"):
        parse_scenario("= broken", "toml")
    with pytest.raises(ValueError, match="sector 'oil'"):
        run(ticks=1, scenario=scenario(shocks=[{"kind": "supply_shock", "sector": "oil", "start": 1}]))


def test_a_default_rate_shock_lasts_until_the_next_review() -> None:
    from psychoagent.econ.shocks import RateShock

    shock = RateShock(start=14, delta=0.02)
    assert [shock.gap(t, 12) for t in (13, 14, 24, 25)] == [0.0, 0.02, 0.02, 0.0]
    model, df = run(ticks=26, scenario=scenario(shocks=[shock.model_dump()]))
    rate = df.set_index("tick")["interest_rate"]
    assert rate[14] == pytest.approx(rate[13] + 0.02) and rate[24] == rate[14]
    assert rate[25] == pytest.approx(model.rule_rate)  # the review at 24 hands the rate back to the rule


def test_a_held_rate_shock_survives_reviews_and_then_decays() -> None:
    from psychoagent.econ.shocks import RateShock

    shock = RateShock(start=5, duration=24, delta=0.04, persistence=0.79)
    assert shock.gap(28, 12) == 0.04 and shock.gap(29, 12) == pytest.approx(0.04 * 0.79)
    assert shock.gap(31, 12) == pytest.approx(0.04 * 0.79**3)
    brute = sum(shock.gap(t, 12) for t in range(10, 2000)) / 12.0
    assert shock.gap_ahead(10, 12) == pytest.approx(brute, rel=1e-9)
    assert shock.gap_ahead(4, 12) == 0.0  # not anticipated before it is announced
    model, _ = run(ticks=4, scenario=scenario(shocks=[shock.model_dump()]))
    reviews: list[dict[str, float]] = []
    model.bus.subscribe("bank.rate_set", lambda e: reviews.append(e.payload))
    model.run(26)
    assert [r["gap"] for r in reviews] == [0.04, 0.04]  # the reviews at 12 and 24 keep the hike on
    for r in reviews:
        assert r["rate"] == pytest.approx(max(r["rule_rate"] + 0.04, 0.0))
    assert model.interest_rate == pytest.approx(
        max(model.rule_rate + 0.04 * 0.79**2, 0.0)
    )  # month 30: decaying


def test_the_euler_term_reads_the_announced_hold() -> None:
    from psychoagent.econ.config import PolicyConfig
    from psychoagent.econ.policies import rate_factor

    model, _ = run(ticks=1)
    snap = model.snapshot()
    neutral = snap.natural_rate + snap.inflation_target
    base = dataclasses.replace(snap, interest_rate=neutral)
    held = dataclasses.replace(snap, interest_rate=neutral + 0.04, rate_gap=0.04, rate_gap_ahead=0.04 * 3)
    cfg = PolicyConfig()
    assert rate_factor(base, cfg) == pytest.approx(1.0)
    assert rate_factor(held, cfg) == pytest.approx(
        1.0 - cfg.consume_rate * 0.12
    )  # sigma x 3 years x 4 points


def test_a_tax_rise_to_the_balance_keeps_what_it_adds(monkeypatch: pytest.MonkeyPatch) -> None:
    """With `to_balance = 1` the lump sum is what the old rates would have raised; the rest stays with the
    government, so its balance grows by exactly that and households' money falls by it."""
    from psychoagent.econ import model as econ_model
    from psychoagent.econ.config import EconomyConfig
    from psychoagent.econ.model import EconomyModel
    from psychoagent.econ.rules import progressive_tax

    cfg = EconomyConfig.model_validate(
        {
            "trading": {"bonds": {"enabled": False}},
            "benefit": {"replacement": 0.0, "contribution": 0.0},
            "fiscal": {"balance_speed": 0.0, "debt_speed": 0.0},
            "bank": {"bills": {"semi_elasticity": 0.0}},
        }
    )  # no coupons, deficit spending, insurance, bills or debt rule: only taxes move the government's balance
    rise = {"kind": "policy_change", "start": 3, "duration": 4, "tax_scale": 1.5, "to_balance": 1.0}
    model, _ = run(ticks=3, scenario=scenario(shocks=[rise]), config=cfg)
    real, seen = econ_model.incomes, []

    def spy(m: EconomyModel, f: dict, t: int) -> None:
        before = m.gov_balance
        real(m, f, t)
        seen.append((f, m.gov_balance - before))

    monkeypatch.setattr(econ_model, "incomes", spy)
    model.run(2)
    for flows, change in seen:
        gross = flows["wages"] + flows["dividends"] + flows["interest"]
        base = float(progressive_tax(gross, cfg.tax).sum())
        assert flows["transfer"].sum() == pytest.approx(base, rel=1e-12)
        assert change == pytest.approx(flows["tax"].sum() - base, rel=1e-12) and change > 0
    assert Levers.fold(model.scenario.shocks, 4).tax_to_balance == 1.0
    assert Levers.fold(model.scenario.shocks, 7).tax_to_balance == 0.0  # over: redistributed again


def test_to_balance_needs_a_tax_change_and_is_announced() -> None:
    s = scenario(shocks=[
        {"kind": "policy_change", "start": 1, "inflation_target": 0.03, "to_balance": 1.0},
        {"kind": "policy_change", "start": 2, "tax_scale": 1.5, "to_balance": 1.0},
        {"kind": "policy_change", "start": 3, "tax_scale": 0.8, "to_balance": 0.5, "duration": 1},
    ])  # fmt: skip
    assert Levers.fold(s.shocks, 1).tax_to_balance == 0.0  # no tax change: nothing to keep
    assert Levers.fold(s.shocks, 2).tax_to_balance == 1.0
    assert Levers.fold(s.shocks, 3).tax_to_balance == 0.5  # the latest tax change decides
    assert "to cut the deficit" in s.shocks[1].news(2).headline
    assert "financed by borrowing" in s.shocks[2].news(3).headline
    plain = scenario(shocks=[{"kind": "policy_change", "start": 1, "tax_scale": 1.5}]).shocks[0]
    assert "deficit" not in plain.news(1).headline


def test_a_rate_floor_holds_while_the_deviation_is_held() -> None:
    cut = {"kind": "rate_shock", "start": 3, "duration": 6, "delta": -0.5, "floor": 0.01}
    _, df = run(ticks=12, scenario=scenario(shocks=[cut]))
    rate = df.set_index("tick")["interest_rate"]
    assert np.allclose(rate.loc[3:8], 0.01)  # a 50-point cut stops at the floor
    assert rate.loc[9] == rate.loc[2] != 0.01  # the hold and its floor end: the rule's rate again


def test_repeated_crash_hits_twice_six_years_apart() -> None:
    s = load_scenario("repeated_crash")
    levers = {t: Levers.fold(s.shocks, t) for t in range(1, s.ticks + 1)}
    assert {t for t, lev in levers.items() if lev.stock_gap < 1.0} == {73, 145}  # 72 months apart
    assert {levers[t].stock_gap for t in (73, 145)} == {0.6}
    slump = {t for t, lev in levers.items() if lev.demand_factor < 1.0}
    assert slump == set(range(73, 85)) | set(range(145, 157))  # spending falls for 12 months each time
    valued = [levers[t].stock_value for t in range(73, 98)]
    assert (
        valued[0] == 0.6 and valued[-1] == 1.0 and valued == sorted(valued)
    )  # the discount fades in 24 months
    assert sorted({sh.start for sh in s.shocks}) == [73, 145]


def test_a_market_crash_opens_stocks_at_its_gap_and_only_stocks() -> None:
    """The crash month's session opens every stock, and nothing else, at the gap (the move traders read as that
    month's first return)."""
    from psychoagent.econ.model import EconomyModel

    crash = scenario(shocks=[{"kind": "market_crash", "start": 4, "duration": 6, "factor": 0.5}])
    model = EconomyModel(seed=2, households=30, scenario=crash)
    model.run(3)
    m = model.markets
    stocks = list(m.firm_col.values())
    before = m.state.price.copy()
    opened: list[np.ndarray] = []
    auction = m.state.after_auction

    def first(k: int, price: float, volume: float, bids: float, asks: float) -> float:
        if len(opened) < len(stocks):
            opened.append(np.array([k, price]))
        return auction(k, price, volume, bids, asks)

    m.state.after_auction = first  # type: ignore[method-assign]
    model.run(1)
    assert [int(k) for k, _ in opened] == stocks
    assert np.allclose([p for _, p in opened], before[stocks] * 0.5)


def test_a_market_crash_out_of_range_is_refused() -> None:
    import pydantic

    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(pydantic.ValidationError, match="factor"):
            scenario(shocks=[{"kind": "market_crash", "start": 4, "factor": bad}])
