"""One settings tree: a scenario's `cognitive` and `evolution` tables reach the policy and `config.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from psychoagent.econ.config import SimulationConfig
from psychoagent.econ.run import simulate
from psychoagent.econ.scenario import parse_scenario
from psychoagent.persona.config import EvolutionConfig

TUNED = (
    'name = "tuned"\n[cognitive]\nshare = 0.5\n[cognitive.ablation]\nmemory = false\n'
    '[evolution]\npreset = "volatile"\nloss_aversion = 1.5\n'
)


def test_a_scenario_configures_the_cognitive_households_and_config_json_records_it(tmp_path: Path) -> None:
    scen = parse_scenario(TUNED, "toml")
    simulate(tmp_path / "run", agents=10, ticks=2, seed=1, policy="cognitive", scenario=scen)
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["cognitive"]["share"] == 0.5 and config["cognitive"]["ablation"]["memory"] is False
    volatile = EvolutionConfig.preset("volatile").model_dump(mode="json")
    assert config["evolution"] == {**volatile, "loss_aversion": 1.5}
    plain = simulate(tmp_path / "plain", agents=10, ticks=1, seed=1, policy="cognitive")
    assert plain.policy.cognitive.share == 1.0  # type: ignore[attr-defined]
    econagent = simulate(
        tmp_path / "econagent", agents=10, ticks=1, seed=1, policy="econagent", scenario=scen
    )
    assert econagent.policy.cognitive.share == 0.5  # type: ignore[attr-defined]
    assert econagent.policy.cognitive.decide_every == econagent.policy.econ.decide_every  # type: ignore[attr-defined]


def test_rule_policies_refuse_agent_settings_and_bad_keys_are_named(tmp_path: Path) -> None:
    memory = 'name = "remembering"\n[memory]\nrecipe = "documents"\n'
    for k, text in enumerate((TUNED, memory)):
        with pytest.raises(ValueError, match="no cognitive households"):
            simulate(tmp_path / f"rule{k}", agents=10, ticks=1, seed=1, policy="persona",
                     scenario=parse_scenario(text, "toml"))  # fmt: skip
        assert not (tmp_path / f"rule{k}" / "config.json").exists()
    with pytest.raises(ValueError, match=r"cognitive\.shar"):
        parse_scenario("[cognitive]\nshar = 0.5\n", "toml")
    with pytest.raises(ValueError, match="unknown evolution preset"):
        parse_scenario("[evolution]\npreset = 'calm'\n", "toml")


def test_the_settings_tree_merges_every_table_over_the_defaults() -> None:
    scen = parse_scenario(TUNED + "[economy.bank]\nnatural_rate = 0.02\n", "toml")
    settings = scen.settings()
    assert isinstance(settings, SimulationConfig)
    assert settings.economy.bank.natural_rate == 0.02 and settings.cognitive.share == 0.5
    assert settings.cognitive.recall == SimulationConfig().cognitive.recall  # untouched parts keep defaults
    assert scen.configures_agents and not parse_scenario("name = 'x'\n", "toml").configures_agents


MEMORY = 'name = "remembering"\n[memory]\nrecipe = "documents"\n[memory.recall]\nrecency_weight = 0.25\n'


def test_a_scenario_memory_table_starts_from_a_recipe_and_reaches_the_households(tmp_path: Path) -> None:
    scen = parse_scenario(MEMORY, "toml")
    recall = scen.settings().memory.recall
    assert recall.session_weight == 0.0 and recall.speaker_boost == 0.0  # the documents recipe
    assert recall.recency_weight == 0.25 and recall.dense_weight is None  # the override; the rest default
    assert (
        SimulationConfig().memory.affect.conflicts.detect_changes is False
    )  # event memories: numbers are news
    run = simulate(tmp_path / "run", agents=10, ticks=2, seed=1, policy="cognitive", scenario=scen)
    mind = run.policy.kit.population  # type: ignore[attr-defined]
    assert mind.recall_cfg == recall and mind.public.affect_config == scen.settings().memory.affect
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert (
        config["memory"]["recall"]["recency_weight"] == 0.25
        and config["memory"]["recall"]["session_weight"] == 0
    )
    private = parse_scenario(MEMORY + '[cognitive]\nmemory_backend = "private"\n', "toml")
    run = simulate(tmp_path / "private", agents=10, ticks=1, seed=1, policy="cognitive", scenario=private)
    household = next(iter(run.policy.kit.minds().values()))  # type: ignore[attr-defined]
    assert household.memory.config.recall == recall


def test_a_bad_memory_table_is_named() -> None:
    with pytest.raises(ValueError, match="unknown recall recipe 'chatty'; choose from: default, documents"):
        parse_scenario('[memory]\nrecipe = "chatty"\n', "toml")
    with pytest.raises(ValueError, match=r"memory\.recall\.recency_wieght|recency_wieght"):
        parse_scenario("[memory.recall]\nrecency_wieght = 0.2\n", "toml")
