"""Named recall recipes: each is a valid change of the defaults that does what its name says, reachable from the
Python API, the CLI (`--recipe`) and a scenario's `[memory]` table (tests/econ/test_settings.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.memory import RECALL_RECIPES, Memory, recall_recipe
from psychoagent.memory.config import MemoryConfig, RecallConfig

runner = CliRunner()


def test_every_recipe_is_the_default_with_its_own_changes_and_overrides_win() -> None:
    assert recall_recipe("default") == RecallConfig()
    for name, recipe in RECALL_RECIPES.items():
        cfg = recall_recipe(name)
        changed = {k for k in RecallConfig.model_fields if getattr(cfg, k) != getattr(RecallConfig(), k)}
        assert changed == set(recipe.changes), name
        assert recipe.description and recall_recipe(name) is not recall_recipe(name)  # a fresh copy each time
    assert recall_recipe("documents", session_weight=0.2).session_weight == 0.2
    assert recall_recipe("documents", session_weight=0.2).reply_weight == 0.0
    with pytest.raises(
        ValueError, match="unknown recall recipe 'fast'; choose from: default, documents, exact"
    ):
        recall_recipe("fast")
    with pytest.raises(ValidationError, match="recency_wieght"):
        recall_recipe("exact", recency_wieght=0.2)


def _memory(recipe: str) -> Memory:
    mem = Memory(embedder="hash", appraiser=None, config=MemoryConfig(recall=recall_recipe(recipe)))
    mem.observe_many([
        {"id": "a", "text": "Dana's locker code is KX-4471."},
        {"id": "b", "text": "Dana keeps her sports bag in the locker room."},
        {"id": "c", "text": "The gym locker room was repainted last spring."},
    ])  # fmt: skip
    return mem


def test_stateless_recall_counts_nothing_and_each_recipe_weighs_what_its_name_says() -> None:
    default, stateless = _memory("default"), _memory("stateless")
    for _ in range(3):
        default.recall("Dana locker", k=3)
        stateless.recall("Dana locker", k=3)
    default.close()  # access counts are written behind; closing flushes them
    assert max(u.access_count for u in stateless.get_many(["a", "b", "c"])) == 0
    stateless.close()
    relevance = {}
    for recipe in ("default", "keyword", "dense", "documents"):
        mem = _memory(recipe)
        hits = {h.unit.id: h for h in mem.recall("KX-4471", k=3)}
        assert next(iter(hits)) == "a", recipe  # the code itself wins in every recipe
        relevance[recipe] = hits["c"].parts["relevance"]
        if recipe == "documents":  # units written together are not read as one conversation's session
            assert all(h.parts.get("session", 0.0) == 0.0 for h in hits.values())
        else:
            assert hits["a"].parts["session"] > 0
        mem.close()
    assert (
        relevance["keyword"] == 0.0 < relevance["default"] < relevance["dense"]
    )  # no shared word: dense only


def test_the_cli_recalls_by_recipe_and_names_an_unknown_one(tmp_path: Path) -> None:
    turns = tmp_path / "t.jsonl"
    turns.write_text(json.dumps({"id": "a", "text": "Dana's locker code is KX-4471."}) + "\n")
    db = tmp_path / "m.db"
    assert (
        runner.invoke(
            app, ["memory", "ingest", "--db", str(db), "--input", str(turns), "--embedder", "hash"]
        ).exit_code
        == 0
    )
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q", "query": "locker code"}) + "\n")
    out = tmp_path / "hits.jsonl"
    args = [
        "memory",
        "recall",
        "--db",
        str(db),
        "--input",
        str(queries),
        "--output",
        str(out),
        "--embedder",
        "hash",
    ]
    result = runner.invoke(app, [*args, "--recipe", "fast"])
    assert result.exit_code == 2 and not out.exists()
    assert "--recipe: unknown recall recipe 'fast'; choose from: default" in result.output
    result = runner.invoke(app, [*args, "--recipe", "stateless"])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["hits"][0]["id"] == "a"
    result = runner.invoke(
        app, ["memory", "brief", "--db", str(db), "locker code", "--embedder", "hash", "--recipe", "exact"]
    )
    assert result.exit_code == 0 and "KX-4471" in result.output
    result = runner.invoke(
        app, ["memory", "brief", "--db", str(db), "locker code", "--embedder", "hash", "--recipe", "x"]
    )
    assert result.exit_code == 2 and "--recipe" in result.output
