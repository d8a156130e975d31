"""`psychoagent explore`: one clear line and exit 2 for what is not a run or a memory store, a public host refused,
and the real command serving and printing its URL."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from psychoagent.cli import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["explore", *args])
    return result.exit_code, result.stderr


def test_a_folder_that_is_not_a_run_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, err = _run(str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "is not a run directory" in err and "macro.csv" in err


def test_a_file_that_is_not_a_memory_store_is_one_line_and_exit_2(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    code, err = _run("--db", str(text))
    assert code == 2 and err.count("\n") == 1 and "is not a memory store" in err
    code, err = _run("--db", str(tmp_path / "missing.db"))
    assert code == 2 and "is not a file" in err
    assert not (tmp_path / "missing.db").exists()


def test_nothing_to_explore_and_a_public_host_are_refused(run_dir: Path) -> None:
    code, err = _run()
    assert code == 2 and "--db" in err
    code, err = _run(str(run_dir), "--host", "0.0.0.0")
    assert code == 2 and "--host 0.0.0.0 is not a loopback address" in err


def test_the_command_serves_the_run_and_prints_its_url(run_dir: Path) -> None:
    pytest.importorskip("uvicorn", reason="the 'explore' extra is not installed")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "psychoagent", "explore", str(run_dir), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0/")
        for _ in range(300):
            try:
                body = httpx.get(url + "api/run", timeout=5).json()
                break
            except httpx.TransportError:
                assert proc.poll() is None, "the explorer exited"
                time.sleep(0.1)
        else:
            pytest.fail("the explorer did not answer")
        assert body["ticks"] == 30
    finally:
        proc.terminate()
        proc.wait(timeout=30)
