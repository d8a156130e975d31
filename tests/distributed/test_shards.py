"""Sharded cognitive households in this process: the same run files as one process, whatever the partition."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.econ.cognitive.policy import household_generator
from psychoagent.econ.cognitive.population import HouseholdDraws
from psychoagent.econ.distributed.driver import ShardedCognitivePolicy, sharded
from psychoagent.econ.policies import make_policy
from psychoagent.econ.run import simulate
from psychoagent.econ.scenario import Scenario
from psychoagent.eval.rundata import RunData
from psychoagent.eval.variants import resolve
from psychoagent.memory.population.memory import _row_dots
from psychoagent.memory.population.recall import _ordered_top, _top_mask
from tests.distributed.runfiles import different_files


@pytest.mark.parametrize(
    (
        "overrides",
        "shards",
        "seed",
    ),  # seeds whose 10 months close deals across the shards in every partition
    [
        ({}, 3, 6),
        ({"memory_backend": "private"}, 2, 6),
        ({"share": 0.5, "decide_every": 2}, 4, 6),
        ({"trace_decisions": 7}, 3, 6),
    ],
)
def test_sharded_run_writes_the_files_of_one_process(
    tmp_path: Path, overrides: dict, shards: int, seed: int
) -> None:
    scen = Scenario(cognitive=overrides)
    one, many = tmp_path / "one", tmp_path / "many"
    simulate(one, agents=40, ticks=10, seed=seed, policy="cognitive", scenario=scen)
    model = simulate(many, agents=40, ticks=10, seed=seed, policy="cognitive", scenario=scen, shards=shards)
    assert isinstance(model.policy, ShardedCognitivePolicy) and len(model.policy.parts) == shards
    assert different_files(one, many) == []
    run = RunData.open(many)
    # the paths a partition could break: every phase's events, and the deals negotiated between shards
    for kind in ("memory.formed", "guardrail.", "persona.evolved", "negotiation.accepted", "mind.decision"):
        assert run.events(prefix=kind)
    part = {int(i): k for k, p in enumerate(model.policy.parts) for i in p}
    deals = [e["payload"] for e in run.events("negotiation.accepted")]
    assert deals
    if (
        overrides.get("share", 1.0) == 1.0
    ):  # with half the households cognitive, 10 months bring too few deals
        assert any(part[d["buyer"]] != part[d["seller"]] for d in deals)


def test_the_memory_settings_reach_the_shards(tmp_path: Path) -> None:
    scen = Scenario(memory={"recipe": "documents", "recall": {"recency_weight": 0.6, "candidates": 20}})
    simulate(tmp_path / "plain", agents=40, ticks=10, seed=7, policy="cognitive")
    simulate(tmp_path / "one", agents=40, ticks=10, seed=7, policy="cognitive", scenario=scen)
    simulate(tmp_path / "many", agents=40, ticks=10, seed=7, policy="cognitive", scenario=scen, shards=2)
    changed = set(different_files(tmp_path / "plain", tmp_path / "one")) - {"config.json"}
    assert any(
        n.startswith("events/") or n == "agents.parquet" for n in changed
    )  # what households recall and do
    assert different_files(tmp_path / "one", tmp_path / "many") == []


def test_same_seed_one_process_runs_stay_identical_and_seeds_differ(tmp_path: Path) -> None:
    for name, seed in (("a", 8), ("b", 8), ("c", 9)):
        simulate(tmp_path / name, agents=30, ticks=8, seed=seed, policy="cognitive")
    assert different_files(tmp_path / "a", tmp_path / "b") == []
    assert any(n.startswith("events/") for n in different_files(tmp_path / "a", tmp_path / "c"))


def test_only_the_cognitive_policy_and_its_variants_shard() -> None:
    assert isinstance(sharded(make_policy(resolve("no-memory").policy), 2), ShardedCognitivePolicy)
    for name in ("persona", "llm"):
        with pytest.raises(ValueError, match="cognitive policy"):
            sharded(make_policy(name), 2)


def test_top_choices_among_ties_do_not_depend_on_padding() -> None:
    row = np.array([[3.0, 1.0, 3.0, 3.0, 2.0, 3.0]])
    padded = np.concatenate([row, np.full((1, 7), -np.inf)], axis=1)
    for values in (row, padded):
        assert np.flatnonzero(_top_mask(values, 3)).tolist() == [0, 2, 3]
        assert _ordered_top(values, 4)[0].tolist() == [0, 2, 3, 5]


def test_similarities_do_not_depend_on_the_block_a_text_is_in() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((300, 64)).astype(np.float16)
    query = rng.standard_normal(64).astype(np.float32)
    whole = _row_dots(vectors, query)
    parts = np.concatenate([_row_dots(vectors[a:b], query) for a, b in ((0, 1), (1, 4), (4, 97), (97, 300))])
    assert np.array_equal(whole, parts)


def test_household_streams_are_their_own() -> None:
    first = household_generator(11, 3).random(4)
    assert np.array_equal(first, household_generator(11, 3).random(4))
    assert not np.array_equal(first, household_generator(11, 4).random(4))
    draws = HouseholdDraws([household_generator(11, 3), household_generator(11, 4)])
    assert draws.random(2)[0] == first[0]
    with pytest.raises(ValueError, match="one draw per asking household"):
        draws.random(3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shards", "2", "--policy", "persona"], "not --policy persona"),
        (["--backend", "spark"], "--backend must be 'local' or 'ray'"),
        (["--address", "10.0.0.1:6379"], "--address 10.0.0.1:6379 needs --backend ray"),
    ],
)
def test_cli_refuses_bad_sharding_options(tmp_path: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(
        app, ["simulate", "--agents", "5", "--ticks", "2", "--out", str(tmp_path / "r"), *args]
    )
    assert res.exit_code == 2 and message in res.output
    assert not (tmp_path / "r").exists()


def test_ray_backend_without_the_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    for command in (
        ["simulate", "--agents", "5", "--ticks", "2"],
        ["experiment", "--seeds", "1", "--ticks", "2"],
    ):
        res = CliRunner().invoke(app, [*command, "--backend", "ray", "--out", str(tmp_path / "r")])
        assert res.exit_code == 2
        assert (
            res.output.strip() == "error: --backend ray needs the 'ray' extra: pip install 'psychoagent[ray]'"
        )
