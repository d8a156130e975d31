"""`psychoagent llm check` with the offline model and bad specs."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from psychoagent.cli.llm import app


def test_check_offline_prints_latency_and_object() -> None:
    result = CliRunner().invoke(app, ["check", "--llm", "offline"])
    assert result.exit_code == 0, result.output
    assert "latency:" in result.output and "outcome: ok" in result.output
    obj = json.loads(result.output[result.output.index("{") :])
    assert set(obj) == {"sentiment", "valence", "reason"}


def test_check_rejects_unknown_spec() -> None:
    result = CliRunner().invoke(app, ["check", "--llm", "ftp://x"])
    assert result.exit_code == 2 and "allowed: offline" in result.output
