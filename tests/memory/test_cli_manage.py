"""`psychoagent memory list|get|history|export|import|forget|brief|conflicts`: JSON out, exit 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.memory.api import Memory

runner = CliRunner()


def _seed(db: Path) -> tuple[str, str]:
    with Memory(db, namespace="alice", embedder="hash") as mem:
        old = mem.observe("Alice lives in Berlin.", timestamp="2024-01-01T00:00:00Z", metadata={"src": "chat"},
                          goals=["Stay near family"])  # fmt: skip
        new = mem.observe("Alice moved to Paris.", timestamp="2024-03-01T00:00:00Z")
        mem.recall("Alice", k=2)  # access counts must survive the round trip too
        mem.for_namespace("bob").observe("Bob plays chess.")
        return old.id, new.id


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_list_get_history_conflicts_brief(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    old, new = _seed(db)
    common = ("--db", str(db), "--namespace", "alice", "--embedder", "hash")
    code, out, _ = _run("memory", "list", *common)
    assert code == 0 and [json.loads(x)["id"] for x in out.splitlines()] == [old, new]
    code, out, _ = _run("memory", "get", old, *common)
    assert code == 0 and json.loads(out)["metadata"]["src"] == "chat"
    code, out, _ = _run("memory", "history", new, *common)
    assert code == 0 and [v["id"] for v in json.loads(out)["versions"]] == [old, new]
    code, out, _ = _run("memory", "conflicts", *common, "--status", "unresolved")
    assert code == 0 and json.loads(out.splitlines()[0])["side_b"] == new
    code, out, _ = _run("memory", "brief", "Where does Alice live?", *common)
    assert code == 0 and "Alice moved to Paris." in out and "Conflict 1" in out
    code, out, _ = _run("memory", "brief", "Where?", *common, "--json")
    assert code == 0 and json.loads(out)["query"] == "Where?"


def test_export_import_round_trips_every_field(tmp_path: Path) -> None:
    db, copy, dump = tmp_path / "m.db", tmp_path / "copy.db", tmp_path / "dump.jsonl"
    _seed(db)
    code, _, _ = _run("memory", "export", "--db", str(db), "--output", str(dump), "--embedder", "hash")
    assert code == 0
    code, out, err = _run("memory", "import", "--db", str(copy), "--input", str(dump), "--embedder", "hash")
    assert code == 0, err
    assert json.loads(out)["units"] == 3 and json.loads(out)["conflicts"] == 1
    again = tmp_path / "again.jsonl"
    assert _run("memory", "export", "--db", str(copy), "--output", str(again), "--embedder", "hash")[0] == 0
    assert again.read_text() == dump.read_text()
    with Memory(db, embedder="hash") as a, Memory(copy, embedder="hash") as b:
        for ns in ("alice", "bob"):
            assert a.for_namespace(ns).units() == b.for_namespace(ns).units()
            assert a.for_namespace(ns).edges() == b.for_namespace(ns).edges()
        assert any(u.access_count for u in b.for_namespace("alice").units())


def test_bad_input_exits_2_naming_the_argument_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    old, _ = _seed(db)
    common = ("--db", str(db), "--namespace", "alice", "--embedder", "hash")
    code, _, err = _run("memory", "get", "missing", *common)
    assert code == 2 and "'id'" in err
    code, _, err = _run("memory", "brief", "Where?", *common, "--k", "0")
    assert code == 2 and "--k" in err
    code, _, err = _run("memory", "list", "--db", str(tmp_path / "none.db"))
    assert code == 2 and "--db" in err
    dump = tmp_path / "d.jsonl"
    _run("memory", "export", "--db", str(db), "--output", str(dump), "--embedder", "hash")
    lines = dump.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines, '{"type": "unit", "namespace": "x", "data": {"id": "y"}}']) + "\n")
    target = tmp_path / "target.db"
    code, _, err = _run("memory", "import", "--db", str(target), "--input", str(broken), "--embedder", "hash")
    assert code == 2 and f"line {len(lines) + 1}" in err and "'content'" in err
    clash = tmp_path / "clash.jsonl"
    clash.write_text("\n".join([*lines, lines[0]]) + "\n")
    code, _, err = _run("memory", "import", "--db", str(target), "--input", str(clash), "--embedder", "hash")
    assert code == 2 and "nothing was written" in err
    with Memory(target, embedder="hash") as mem:
        assert mem.store.count() == 0
    code, out, _ = _run("memory", "forget", old, *common, "--reason", "privacy")
    assert code == 0 and json.loads(out)["content"] == "[forgotten]"
