"""The pre-registration rules of the ablation expectations, and the held / not held judgement on paired seeds."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from pydantic import ValidationError

from benchmarks import bench_ablations as ba

WHY = "the mechanism in one sentence"


def _entry(variant: str, metric: str = "experience.disposition", scenario: str = "repeated_crash",
           direction: str = "lower", primary: bool = True) -> dict:  # fmt: skip
    return {"variant": variant, "scenario": scenario, "metric": metric, "direction": direction, "primary": primary,
            "why": WHY}  # fmt: skip


def _registry(*entries: dict) -> dict:
    return {"expectations": list(entries)}


GOOD = _registry(_entry("no-memory"), _entry("static-persona", direction="higher"), _entry("no-affect"))


def test_rules_of_the_pre_registration() -> None:
    assert len(ba.Registry.model_validate(GOOD).expectations) == 3
    with pytest.raises(ValidationError, match="no primary expectation for no-affect"):
        ba.Registry.model_validate(_registry(_entry("no-memory"), _entry("static-persona")))
    with pytest.raises(ValidationError, match="outcome metric"):
        ba.Registry.model_validate(
            _registry(*GOOD["expectations"], _entry("no-memory", "cognition.memories_per_agent_tick"))
        )
    with pytest.raises(ValidationError, match="at most two scenarios"):
        ba.Registry.model_validate(_registry(_entry("no-memory", scenario="a"), _entry("static-persona", scenario="b"),
                                             _entry("no-affect", scenario="c")))  # fmt: skip
    with pytest.raises(ValidationError, match="unknown ablation variant"):
        ba.Registry.model_validate(_registry(_entry("no-such-thing")))


def test_judge_needs_the_interval_on_the_declared_side() -> None:
    registry = ba.Registry.model_validate(GOOD)
    rows = []
    for seed in range(1, 7):
        rows.append({"condition": "full", "variant": "full", "seed": seed, "experience.disposition": 0.10})
        rows.append({"condition": "no-memory", "variant": "no-memory", "seed": seed,
                     "experience.disposition": 0.05 + 0.001 * seed})  # fmt: skip  # clearly lower: held
        rows.append({"condition": "static-persona", "variant": "static-persona", "seed": seed,
                     "experience.disposition": 0.05})  # fmt: skip  # lower, but "higher" expected: not held
        rows.append({"condition": "no-affect", "variant": "no-affect", "seed": seed,
                     "experience.disposition": 0.10 + (0.01 if seed % 2 else -0.01)})  # fmt: skip  # no effect
    table = ba.judge(registry, {"repeated_crash": pd.DataFrame(rows)}).set_index("variant")
    assert table.loc["no-memory", "held"] and table.loc["no-memory", "ci_high"] < 0
    assert not table.loc["static-persona", "held"]
    assert not table.loc["no-affect", "held"]
    assert "Primary expectations held: 1 of 3." in ba.markdown(table.reset_index(), list(range(1, 7)), 100)


def test_smoke_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "expectations.json"
    path.write_text(json.dumps(_registry(_entry("no-memory", "welfare.gini", scenario="baseline"),
                                         _entry("static-persona", "welfare.gini", scenario="baseline"),
                                         _entry("no-affect", "welfare.gini", scenario="baseline"))))  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["bench_ablations", "--seeds", "1-2", "--agents", "6", "--months", "14",
                                      "--expectations", str(path), "--out", str(tmp_path / "runs"), "--no-write"])  # fmt: skip
    ba.main()
    out = capsys.readouterr().out
    assert (
        "| no-memory | baseline | `welfare.gini` | lower | yes |" in out
        and "Primary expectations held" in out
    )
