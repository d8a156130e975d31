"""`mind.decision` events: journalling a household's briefing and guarded decision changes no number of the run,
and above `trace_decisions` households an even sample is traced."""

from __future__ import annotations

from pathlib import Path

from psychoagent.econ.run import simulate
from psychoagent.econ.scenario import Scenario
from psychoagent.eval.rundata import RunData


def _run(out: Path, trace: int) -> dict[str, int]:
    """A 12-household, 10-month cognitive run tracing `trace` households; events per source of mind.decision."""
    scen = Scenario.model_validate({"name": "t", "cognitive": {"trace_decisions": trace}})
    simulate(out, agents=12, ticks=10, seed=7, policy="cognitive", scenario=scen)
    seen: dict[str, int] = {}
    for event in RunData.open(out).events("mind.decision"):
        seen[event["source"]] = seen.get(event["source"], 0) + 1
    return seen


def _without_traces(folder: Path) -> list[dict]:
    events = RunData.open(folder).events()
    return [{k: v for k, v in e.items() if k != "seq"} for e in events if e["type"] != "mind.decision"]


def test_tracing_changes_no_number_and_samples_evenly(tmp_path: Path) -> None:
    none = _run(tmp_path / "none", 0)
    every = _run(tmp_path / "every", 1000)
    some = _run(tmp_path / "some", 4)
    assert none == {}
    assert set(every) == {f"household:{i}" for i in range(12)} and set(every.values()) == {10}
    assert set(some) == {"household:0", "household:3", "household:6", "household:9"}
    for name in ("macro.parquet", "agents.parquet", "assets.parquet"):
        assert (tmp_path / "none" / name).read_bytes() == (tmp_path / "every" / name).read_bytes(), name
    assert _without_traces(tmp_path / "none") == _without_traces(tmp_path / "every")
