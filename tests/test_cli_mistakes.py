"""Everyday mistakes at the command line: exit code 2, one line naming what is wrong, no traceback, nothing
written and no folder left behind."""

from __future__ import annotations

import sqlite3
from importlib.util import find_spec
from pathlib import Path

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.memory.api import Memory

runner = CliRunner()
SIM = ["simulate", "--agents", "3", "--ticks", "2"]
HASH = ["--embedder", "hash"]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Inputs every case may name: bad scenarios, a text file posing as a database, another program's SQLite
    file, a Latin-1 file, a memory file and query files."""
    d = tmp_path_factory.mktemp("inputs")
    (d / "bad.toml").write_text('households = "many"\n')
    (d / "unknown.toml").write_text("name = 'x'\nbogus_field = 3\n")
    (d / "cohort.yaml").write_text("name: x\nshocks:\n  - kind: cohort\n    start: 3\n    share: 0\n")
    (d / "notadb.db").write_text("hello, I am text\n")
    with sqlite3.connect(d / "other.db") as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    (d / "latin1.jsonl").write_bytes(b'{"text": "caf\xe9 au lait"}\n')
    (d / "turns.jsonl").write_text('{"text": "The budget is 2000 yuan."}\n')
    (d / "q.jsonl").write_text('{"query": "budget"}\n')
    (d / "badfilter.jsonl").write_text(
        '{"query": "budget"}\n{"query": "x", "where": {"metadata.topic": {"in": 5}}}\n'
    )
    (d / "afile").write_text("not a folder\n")
    used = d / "used"
    used.mkdir()
    (used / "notes.txt").write_text("keep me\n")
    with Memory(d / "mem.db", embedder="hash") as mem:
        mem.observe("The budget is 2000 yuan.")
    return d


CASES = [
    # (id, arguments with {d} for the inputs folder, text the one line must contain)
    ("scenario-wrong-type", [*SIM, "--scenario", "{d}/bad.toml", "--out", "{d}/o"], "households"),
    ("scenario-unknown-field", [*SIM, "--scenario", "{d}/unknown.toml", "--out", "{d}/o"], "bogus_field"),
    ("scenario-missing-file", [*SIM, "--scenario", "{d}/missing.toml", "--out", "{d}/o"], "no such file"),
    ("scenario-unknown-name", [*SIM, "--scenario", "atlantis", "--out", "{d}/o"], "baseline"),
    ("cohorts-sharded", [*SIM, "--scenario", "inflation_cohorts", "--shards", "2", "--out", "{d}/o"],
     "which run in one process"),
    ("cohort-share-zero", [*SIM, "--scenario", "{d}/cohort.yaml", "--out", "{d}/o"], "share"),
    ("seed-negative", [*SIM, "--seed", "-1", "--out", "{d}/o"], "--seed"),
    ("agents-too-many", ["simulate", "--agents", "1000000000", "--out", "{d}/o"], "--agents"),
    ("out-is-a-file", [*SIM, "--out", "{d}/afile"], "is a file"),
    ("out-not-empty", [*SIM, "--out", "{d}/used"], "--overwrite"),
    ("policy-unknown", [*SIM, "--policy", "psychic", "--out", "{d}/o"], "psychic"),
    ("llm-bad-spec", [*SIM, "--policy", "llm", "--llm", "ftp://x", "--out", "{d}/o"], "--llm"),
    ("llm-model-file-missing", [*SIM, "--policy", "llm", "--llm", "local:{d}/none.gguf", "--out", "{d}/o"],
     "--llm"),
    pytest.param("llm-local-without-extra", [*SIM, "--policy", "llm", "--llm", "local", "--out", "{d}/o"],
                 "'local' extra", marks=pytest.mark.skipif(find_spec("llama_cpp") is not None,
                                                           reason="the 'local' extra is installed")),
    ("llm-timeout-zero", [*SIM, "--policy", "llm", "--llm-timeout", "0", "--out", "{d}/o"], "--llm-timeout"),
    ("sweep-wrong-type", ["experiment", "--seeds", "1", "--agents", "3", "--ticks", "2", "--variants", "composite",
                          "--sweep", "consume_base=abc", "--out", "{d}/e"], "consume_base"),
    ("sweep-unknown-setting", ["experiment", "--variants", "composite", "--sweep", "nonsense=1", "--out", "{d}/e"],
     "nonsense"),
    ("variant-unknown", ["experiment", "--variants", "magic", "--out", "{d}/e"], "magic"),
    ("experiment-out-is-a-file", ["experiment", "--variants", "composite", "--out", "{d}/afile"], "is a file"),
    ("ingest-db-is-text", ["memory", "ingest", "--db", "{d}/notadb.db", "--input", "{d}/turns.jsonl", *HASH],
     "not a SQLite memory file"),
    ("recall-db-is-text", ["memory", "recall", "--db", "{d}/notadb.db", "--input", "{d}/q.jsonl", *HASH],
     "not a SQLite memory file"),
    ("ingest-db-of-another-program", ["memory", "ingest", "--db", "{d}/other.db", "--input", "{d}/turns.jsonl",
                                      *HASH], "another program"),
    ("recall-db-of-another-program", ["memory", "recall", "--db", "{d}/other.db", "--input", "{d}/q.jsonl", *HASH],
     "another program"),
    ("recall-db-missing", ["memory", "recall", "--db", "{d}/nope.db", "--input", "{d}/q.jsonl", *HASH],
     "does not exist"),
    ("ingest-db-folder-missing", ["memory", "ingest", "--db", "{d}/no/such/m.db", "--input", "{d}/turns.jsonl",
                                  *HASH], "does not exist"),
    ("ingest-input-missing", ["memory", "ingest", "--db", "{d}/new.db", "--input", "{d}/missing.jsonl", *HASH],
     "--input"),
    ("recall-input-missing", ["memory", "recall", "--db", "{d}/mem.db", "--input", "{d}/missing.jsonl", *HASH],
     "--input"),
    ("ingest-not-utf8", ["memory", "ingest", "--db", "{d}/new.db", "--input", "{d}/latin1.jsonl", *HASH],
     "line 1: not valid UTF-8"),
    ("appraise-not-utf8", ["appraise", "--input", "{d}/latin1.jsonl", "--output", "{d}/affect.jsonl"],
     "line 1: not valid UTF-8"),
    ("appraise-input-missing", ["appraise", "--input", "{d}/missing.jsonl"], "--input"),
    ("ingest-batch-zero", ["memory", "ingest", "--db", "{d}/new.db", "--input", "{d}/turns.jsonl", "--batch", "0",
                           *HASH], "--batch"),
    ("recall-k-negative", ["memory", "recall", "--db", "{d}/mem.db", "--input", "{d}/q.jsonl", "--k", "-3", *HASH],
     "--k"),
    ("recall-filter-wrong-type", ["memory", "recall", "--db", "{d}/mem.db", "--input", "{d}/badfilter.jsonl",
                                  "--output", "{d}/hits.jsonl", *HASH], "line 2"),
    ("report-not-a-run", ["report", "{d}/used"], "not a run directory"),
    ("metrics-missing-folder", ["metrics", "{d}/nothing"], "nothing"),
]  # fmt: skip


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its content, and every folder (value b'/')."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"/")
        for p in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize(("case", "args", "expected"), CASES)
def test_mistake_exits_2_in_one_line_and_writes_nothing(
    files: Path, case: str, args: list[str], expected: str
) -> None:
    before = _snapshot(files)
    result = runner.invoke(app, [a.replace("{d}", str(files)) for a in args], env={"COLUMNS": "300"})
    assert result.exit_code == 2, f"{case}: exit {result.exit_code}: {result.output}"
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # no exception escaped the command
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert expected in lines[0], lines[0]
    assert _snapshot(files) == before, f"{case} wrote or changed files"


def test_help_lists_allowed_names_and_version() -> None:
    sim = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "300"})
    assert "bull_turning_bear" in sim.output and "cognitive" in sim.output
    exp = runner.invoke(app, ["experiment", "--help"], env={"COLUMNS": "300"})
    assert "static-persona" in exp.output and "no-guardrails" in exp.output
    recall = runner.invoke(app, ["memory", "recall", "--help"], env={"COLUMNS": "300"})
    assert "created if missing" not in recall.output and "must exist" in recall.output
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0 and version.output.startswith("psychoagent ")


def test_overwrite_replaces_run_files_and_keeps_others(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert runner.invoke(app, [*SIM, "--out", str(out), "--report"]).exit_code == 0
    (out / "notes.txt").write_text("mine\n")
    refused = runner.invoke(app, [*SIM, "--seed", "7", "--out", str(out)])
    assert refused.exit_code == 2 and "--overwrite" in refused.output
    assert '"seed": 42' in (out / "config.json").read_text()
    again = runner.invoke(app, [*SIM, "--seed", "7", "--out", str(out), "--overwrite"])
    assert again.exit_code == 0, again.output
    assert '"seed": 7' in (out / "config.json").read_text()
    assert not (out / "report.html").exists() and not (out / "metrics.json").exists()  # stale: removed
    assert (out / "notes.txt").read_text() == "mine\n"


def test_summary_line_does_not_wrap_when_piped(tmp_path: Path) -> None:
    result = runner.invoke(app, [*SIM, "--out", str(tmp_path / "run")], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    summary = next(line for line in result.output.splitlines() if "households, policy" in line)
    assert summary.rstrip().endswith(str(tmp_path / "run"))


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="needs /dev/null")
def test_input_may_be_a_device_and_a_folder_is_refused(tmp_path: Path) -> None:
    appraised = runner.invoke(
        app, ["appraise", "--input", "/dev/null", "--output", str(tmp_path / "a.jsonl")]
    )
    assert appraised.exit_code == 0, appraised.output
    ingested = runner.invoke(
        app, ["memory", "ingest", "--db", str(tmp_path / "m.db"), "--input", "/dev/null", *HASH]
    )
    assert ingested.exit_code == 0, ingested.output
    folder = runner.invoke(app, ["appraise", "--input", str(tmp_path)])
    assert folder.exit_code == 2 and "is a folder" in folder.output
