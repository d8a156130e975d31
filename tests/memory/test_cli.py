"""`psychoagent memory ingest/recall`: round trip with ids, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from psychoagent.cli import app

runner = CliRunner()


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    )
    return path


def test_ingest_recall_round_trip_keeps_ids(tmp_path: Path) -> None:
    turns = _write(tmp_path / "turns.jsonl", [
        {"id": "D1:1", "text": "Caroline went to the LGBTQ support group yesterday.", "timestamp": "2023-05-08T13:56:00Z"},
        {"id": "D1:2", "text": "Melanie painted a sunrise over the lake.", "metadata": {"speaker": "Melanie"}},
        {"id": "D1:1", "text": "Another conversation with a clashing id.", "namespace": "conv2"},
        {"id": "z1", "text": "卡罗琳下个月要去北京。"},
    ])  # fmt: skip
    db = tmp_path / "mem.db"
    result = runner.invoke(
        app, ["memory", "ingest", "--db", str(db), "--input", str(turns), "--embedder", "hash"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["written"] == 4
    queries = _write(tmp_path / "q.jsonl", [
        {"id": "q1", "query": "What did Melanie paint?"},
        {"id": "q2", "query": "support group", "k": 1},
        {"id": "q3", "query": "clashing id", "namespace": "conv2"},
        {"id": "q4", "query": "anything", "namespace": "unknown"},
        {"id": "q5", "query": "卡罗琳去北京", "k": 1},
    ])  # fmt: skip
    out = tmp_path / "hits.jsonl"
    result = runner.invoke(app, ["memory", "recall", "--db", str(db), "--input", str(queries), "--output", str(out),
                                 "--k", "2", "--embedder", "hash"])  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["q1", "q2", "q3", "q4", "q5"]
    assert lines[0]["hits"][0]["id"] == "D1:2" and lines[0]["hits"][0]["metadata"] == {"speaker": "Melanie"}
    assert len(lines[0]["hits"]) == 2 and "relevance" in lines[0]["hits"][0]["parts"]
    assert [h["id"] for h in lines[1]["hits"]] == ["D1:1"]
    assert lines[2]["hits"][0]["text"] == "Another conversation with a clashing id."
    assert lines[3]["hits"] == []
    assert lines[4]["hits"][0]["id"] == "z1"


def test_malformed_line_names_line_and_field_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "mem.db"
    bad = _write(tmp_path / "bad.jsonl", [{"text": "fine"}, {"txt": "typo"}, {"text": "also fine"}])
    result = runner.invoke(
        app, ["memory", "ingest", "--db", str(db), "--input", str(bad), "--embedder", "hash"]
    )
    assert result.exit_code == 2
    assert "line 2" in result.stderr and "'text'" in result.stderr and "nothing was written" in result.stderr
    broken = _write(tmp_path / "broken.jsonl", [{"text": "fine"}, '{"text": "unterminated'])
    result = runner.invoke(
        app, ["memory", "ingest", "--db", str(db), "--input", str(broken), "--embedder", "hash"]
    )
    assert result.exit_code == 2 and "line 2: not valid JSON" in result.stderr
    stamp = _write(tmp_path / "stamp.jsonl", [{"text": "x", "timestamp": "last tuesday"}])
    result = runner.invoke(
        app, ["memory", "ingest", "--db", str(db), "--input", str(stamp), "--embedder", "hash"]
    )
    assert result.exit_code == 2 and "'timestamp'" in result.stderr
    result = runner.invoke(app, ["memory", "ingest", "--db", str(db), "--input", str(bad), "--embedder", "hash",
                                 "--skip-invalid"])  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "written": 2,
        "skipped": 1,
        "namespaces": ["default"],
    }
    assert "skipped: line 2" in result.stderr


def test_bad_query_line_and_missing_db(tmp_path: Path) -> None:
    queries = _write(tmp_path / "q.jsonl", [{"query": "ok"}, {"query": "x", "k": 0}])
    result = runner.invoke(
        app, ["memory", "recall", "--db", str(tmp_path / "none.db"), "--input", str(queries)]
    )
    assert result.exit_code == 2 and "does not exist" in result.stderr
    db = tmp_path / "m.db"
    _write(tmp_path / "t.jsonl", [{"text": "ok"}])
    runner.invoke(
        app, ["memory", "ingest", "--db", str(db), "--input", str(tmp_path / "t.jsonl"), "--embedder", "hash"]
    )
    result = runner.invoke(
        app, ["memory", "recall", "--db", str(db), "--input", str(queries), "--embedder", "hash"]
    )
    assert result.exit_code == 2 and "line 2" in result.stderr and "'k'" in result.stderr
