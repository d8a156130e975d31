"""Every script in examples/ runs (at a small size) and prints what it promises; the notebook's code cells run in
order in one interpreter."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(args: list[str], cwd: Path, timeout: int = 600) -> str:
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_example_is_tested() -> None:
    tested = {"memory_quickstart.py", "contradictory_instructions.py", "economy_ablation.py", "service_client.py",
              "render_run.ipynb"}  # fmt: skip
    assert {p.name for p in EXAMPLES.iterdir() if p.suffix in (".py", ".ipynb")} == tested


def test_memory_quickstart(tmp_path: Path) -> None:
    out = _run([str(EXAMPLES / "memory_quickstart.py"), "--embedder", "hash", "--db", "q.db"], tmp_path)
    assert "Alice moved to Paris in March." in out and "superseded" in out
    assert "what was true on 1 February:\n  Alice lives in Berlin." in out
    assert "forgotten:" in out and "flight to Rome" not in out.split("forgotten:")[1]


def test_contradictory_instructions_offline(tmp_path: Path) -> None:
    out = _run(
        [str(EXAMPLES / "contradictory_instructions.py"), "--llm", "offline", "--embedder", "hash"], tmp_path
    )
    assert "Conflicts (both sides kept" in out and "business class" in out and "assistant (offline):" in out


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="the 'local' extra is not installed"
)
def test_contradictory_instructions_with_the_local_model(tmp_path: Path) -> None:
    out = _run([str(EXAMPLES / "contradictory_instructions.py"), "--embedder", "hash"], tmp_path)
    answer = out.split("assistant (local):", 1)[1].strip()
    assert answer  # the bundled model said something


def test_economy_ablation_small(tmp_path: Path) -> None:
    out = _run([str(EXAMPLES / "economy_ablation.py"), "--agents", "8", "--months", "14", "--seeds", "2",
                "--scenario", "baseline", "--out", "ab"], tmp_path)  # fmt: skip
    assert "no-memory" in out and "static-persona" in out and "report:" in out
    assert (tmp_path / "ab" / "report.html").is_file()


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None or importlib.util.find_spec("fastapi") is None,
                    reason="the 'server' and 'mcp' extras are not installed")  # fmt: skip
def test_service_client(tmp_path: Path) -> None:
    out = _run([str(EXAMPLES / "service_client.py")], tmp_path)
    assert "REST recall: ['Alice moved to Paris.'" in out
    assert "MCP tools:" in out and "'recall'" in out and "MCP recall: [" in out


def test_notebook_cells_run_in_order(tmp_path: Path) -> None:
    notebook = json.loads((EXAMPLES / "render_run.ipynb").read_text(encoding="utf-8"))
    code = "\n\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert "AGENTS, MONTHS, SEED = 30, 60, 7" in code
    script = tmp_path / "notebook.py"
    script.write_text(code.replace("AGENTS, MONTHS, SEED = 30, 60, 7", "AGENTS, MONTHS, SEED = 8, 14, 7"))
    out = _run([str(script)], tmp_path)
    assert out.strip().endswith("report.html")
    assert (tmp_path / "runs" / "notebook" / "report.html").is_file()
