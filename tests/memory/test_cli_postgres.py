"""`psychoagent memory ...` on a PostgreSQL URL (the real server the suite starts), and bad URLs: one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from tests.pg import with_database

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_ingest_recall_list_and_export_on_a_postgres_url(pg_url: str, tmp_path: Path) -> None:
    turns = tmp_path / "turns.jsonl"
    turns.write_text(
        "\n".join(json.dumps(line) for line in [
            {"text": "Alice moved to Berlin.", "id": "a1", "timestamp": "2024-01-01T00:00:00Z"},
            {"text": "Bob plays chess on Sundays.", "id": "b1", "namespace": "bob"},
        ]) + "\n", encoding="utf-8",
    )  # fmt: skip
    code, _, err = _run("memory", "ingest", "--db", pg_url, "--input", str(turns), "--embedder", "hash")
    assert code == 0, err
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query": "Where did Alice move?", "id": "q1"}) + "\n", encoding="utf-8")
    out = tmp_path / "hits.jsonl"
    code, _, err = _run("memory", "recall", "--db", pg_url, "--input", str(queries), "--output", str(out),
                        "--embedder", "hash", "--k", "1")  # fmt: skip
    assert code == 0, err
    assert [h["id"] for h in json.loads(out.read_text(encoding="utf-8"))["hits"]] == ["a1"]
    code, listed, err = _run("memory", "list", "--db", pg_url, "--namespace", "bob", "--embedder", "hash")
    assert code == 0, err
    assert [json.loads(line)["id"] for line in listed.splitlines()] == ["b1"]
    dump = tmp_path / "dump.jsonl"
    assert _run("memory", "export", "--db", pg_url, "--output", str(dump), "--embedder", "hash")[0] == 0
    lines = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert {line["data"]["id"] for line in lines if line["type"] == "unit"} == {"a1", "b1"}


def _one_line_exit_2(args: list[str]) -> str:
    code, _, err = _run(*args)
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: --db"), err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("command", ["list", "ingest", "recall"])
def test_bad_urls_stop_with_one_line_and_exit_2(command: str, tmp_path: Path, pg_server: Any) -> None:
    extra = {
        "list": [],
        "ingest": ["--input", str(tmp_path / "t.jsonl")],
        "recall": ["--input", str(tmp_path / "q.jsonl")],
    }
    (tmp_path / "t.jsonl").write_text('{"text": "x"}\n', encoding="utf-8")
    (tmp_path / "q.jsonl").write_text('{"query": "x"}\n', encoding="utf-8")
    for url, says in [
        ("postgresql://user:secret@localhost:99999/db", "not a valid PostgreSQL URL"),
        ("mysql://user:secret@localhost/db", "unsupported scheme 'mysql'"),
        ("postgresql://user:secret@127.0.0.1:1/db", "cannot connect"),
        (with_database(pg_server.get_uri(), "no_such_database"), "no_such_database"),
    ]:
        err = _one_line_exit_2(["memory", command, "--db", url, *extra[command], "--embedder", "hash"])  # fmt: skip
        assert says in err and "secret" not in err, err
