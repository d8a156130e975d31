"""`memory ingest` validates the whole file before the first write: a bad line anywhere, a repeated id or an id
already stored stops it with one `error:` line, exit code 2 and nothing written, whatever --batch is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.memory.api import Memory

runner = CliRunner()


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


BAD_FILES = [
    ("repeated-id", [{"text": "a", "id": "x"}, {"text": "b"}, {"text": "c", "id": "x"}], "line 3: field 'id'"),
    ("stored-id", [{"text": "a", "id": "new"}, {"text": "b", "id": "kept"}], "line 2: field 'id'"),
    ("goals-blank", [{"text": "a"}, {"text": "b", "goals": ["  "]}], "line 2: field 'goals[0]'"),
    ("metadata-nan", [{"text": "a"}, {"text": "b", "metadata": {"r": float("nan")}}], 'line 2: field "metadata'),
    ("timestamp-1e20", [{"text": "a"}, {"text": "b", "timestamp": 1e20}], "line 2: field 'timestamp'"),
    ("kind-reserved", [{"text": "a"}, {"text": "b", "kind": "forgotten"}], "line 2: field 'kind'"),
    ("id-empty", [{"text": "a"}, {"text": "b", "id": ""}], "line 2: field 'id'"),
    ("text-blank", [{"text": "a"}, {"text": "   "}], "line 2: field 'text'"),
    ("source-empty", [{"text": "a"}, {"text": "b", "sources": [""]}], "line 2: field 'sources[0]'"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "rows", "expected"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_a_bad_line_anywhere_writes_nothing(tmp_path: Path, case: str, rows: list[dict[str, object]],
                                            expected: str) -> None:  # fmt: skip
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash") as mem:
        mem.observe("already here", id="kept")
    before = db.read_bytes()
    turns = _write(tmp_path / "turns.jsonl", rows)
    result = runner.invoke(app, ["memory", "ingest", "--db", str(db), "--input", str(turns), "--batch", "1",
                                 "--embedder", "hash"])  # fmt: skip
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], result.output
    assert "nothing was written" in lines[0] and "Traceback" not in result.output
    with Memory(db, embedder="hash") as mem:
        assert [u.id for u in mem.units()] == ["kept"]
    assert db.read_bytes() == before


def test_skip_invalid_stores_the_good_lines_and_reports_the_others(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    rows = [
        {"text": "a", "id": "x"},
        {"text": "b", "goals": "keep low"},
        {"text": "c", "id": "x"},
        {"text": "d"},
    ]
    turns = _write(tmp_path / "turns.jsonl", rows)
    result = runner.invoke(app, ["memory", "ingest", "--db", str(db), "--input", str(turns), "--batch", "1",
                                 "--embedder", "hash", "--skip-invalid"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[-1])["written"] == 2
    assert "line 2: field 'goals'" in result.output and "line 3: field 'id'" in result.output
    with Memory(db, embedder="hash") as mem:
        assert sorted(u.content for u in mem.units()) == ["a", "d"]
