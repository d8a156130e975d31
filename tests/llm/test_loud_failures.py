"""A run whose model fails says so: an unreachable endpoint stops `simulate` before anything is written, too many
fallbacks end in exit 1, `llm check` fails unless the answer is valid, and a passing 500 keeps the mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.llm import LLMConfig, StructuredConfig

from .conftest import FALLBACK, FakeServer, Rating, free_port
from .test_faults import VALID, remote

runner = CliRunner()
ENV = {"COLUMNS": "300", "PSYCHOAGENT_LLM_TIMEOUT": None}
"""--llm-timeout sets PSYCHOAGENT_LLM_TIMEOUT for the run; naming it here restores it after each command."""
LLM_SIM = ["simulate", "--agents", "3", "--ticks", "2", "--policy", "llm", "--llm-timeout", "1"]


def test_unreachable_endpoint_stops_simulate_before_writing(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1#m"  # a loopback port nobody listens on
    out = tmp_path / "run"
    result = runner.invoke(app, [*LLM_SIM, "--llm", url, "--out", str(out)], env=ENV)
    assert result.exit_code == 1, result.output
    assert "did not answer" in result.output and "Connection" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_llm_check_fails_when_the_model_does_not_answer() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = runner.invoke(app, ["llm", "check", "--llm", url, "--llm-timeout", "1"], env=ENV)
    assert result.exit_code == 1
    assert "outcome: fallback" in result.output and "did not give a valid answer" in result.output


def test_too_many_fallbacks_fail_the_run_and_are_counted(fake_server: FakeServer, tmp_path: Path) -> None:
    fake_server.script(("content", "I would rather not answer in JSON."))
    out = tmp_path / "run"
    args = [*LLM_SIM, "--llm", fake_server.url + "#fake", "--out", str(out)]
    result = runner.invoke(app, args, env=ENV)
    assert result.exit_code == 1, result.output
    assert "fell back" in result.output and "--max-fallback-share" in result.output
    assert "decision" in result.output  # counted by purpose in the summary
    usage = json.loads((out / "llm_usage.json").read_text())
    assert usage["total"]["outcomes"]["fallback"] == usage["total"]["calls"] > 0
    from psychoagent.eval.metrics import write_metrics

    llm = write_metrics(out)["llm"]
    assert llm["fallback_share"] == 1.0 and llm["purposes"]["decision"]["fallbacks"] == llm["fallbacks"]
    tolerant = runner.invoke(app, [*args, "--overwrite", "--max-fallback-share", "1"], env=ENV)
    assert tolerant.exit_code == 0, tolerant.output


def test_a_passing_500_does_not_change_the_structured_mode(fake_server: FakeServer) -> None:
    fake_server.script(("status", 500), ("content", VALID))
    model = remote(fake_server, mode="auto")
    assert model.structured("rate", Rating, fallback=FALLBACK).label == "ok"
    assert [r["response_format"]["type"] for r in fake_server.requests] == ["json_schema", "json_schema"]
    assert model.structured_mode == "json_schema"


def test_timeout_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PSYCHOAGENT_LLM_TIMEOUT", "2.5")
    assert LLMConfig.from_env().timeout_s == 2.5
    monkeypatch.setenv("PSYCHOAGENT_LLM_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="timeout_s"):
        LLMConfig.from_env()
    assert StructuredConfig().mode == "auto"


def test_unreachable_endpoint_stops_an_experiment_before_any_run(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1#m"
    out = tmp_path / "exp"
    args = ["experiment", "--seeds", "1", "--agents", "3", "--ticks", "2", "--variants", "llm,composite",
            "--llm", url, "--llm-timeout", "1", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args, env=ENV)
    assert result.exit_code == 1, result.output
    assert "did not answer" in result.output and "nothing was run" in result.output
    assert not out.exists()


def test_probe_of_a_silent_server_names_tries_and_timeout() -> None:
    import socket

    from psychoagent.llm import LLMError, RetryConfig, get_model

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        config = LLMConfig(timeout_s=0.2, retry=RetryConfig(attempts=2))
        with pytest.raises(LLMError, match=r"no answer in 2 tries of at most 0.2 s"):
            get_model(f"http://127.0.0.1:{port}/v1#m", config).probe()
