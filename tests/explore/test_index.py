"""The run's index: the agents table from column reads agrees with the agents' pages, pages are made on demand
from per-agent copies that read only their agent's row groups, the same as from events held in memory (a run
written as events.jsonl), and the cache beside the run is reused until a run file changes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.eval.rundata import RunData
from psychoagent.explore.config import ExploreConfig
from psychoagent.explore.index import ROWS, TEXT_COPIES, RunIndex
from psychoagent.explore.page import MIND, TRAITS
from psychoagent.explore.texts import KIND, LIGHT, TEXTS


@pytest.fixture
def fresh(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of the run without a cache."""
    shutil.copytree(run_dir, tmp_path / "run", ignore=shutil.ignore_patterns(".explore"))
    return tmp_path / "run"


def _row(page: dict[str, Any]) -> dict[str, Any]:
    """The table row an agent's page implies: last traits and wealth, employment, mean affect, counts."""
    series, persona, memories = page["series"], page["persona"], page["memories"]
    worked = series["worked"][-1] if series.get("worked") else None
    n = len(memories)
    return {"id": page["id"], "persona": page["persona_label"], "sector": page["sector"],
            "wealth": series["wealth"][-1], "income": series["income"][-1],
            "employed": None if worked is None else worked > 0.5,
            **{t: persona[t][-1] for t in TRAITS},
            "valence": round(sum(m["valence"] for m in memories) / n, 3) if n else None,
            "arousal": round(sum(m["arousal"] for m in memories) / n, 3) if n else None,
            "memories": sum(int(m["count"]) for m in memories), "conflicts": len(page["conflicts"]),
            "decisions": len(page["decisions"]), "moves": len(page["moves"])}  # fmt: skip


def test_the_table_from_columns_agrees_with_every_page(fresh: Path) -> None:
    index = RunIndex.open(fresh, ExploreConfig(group_rows=7))
    assert [r["id"] for r in index.rows] == list(range(12))
    for row in index.rows:
        assert row == pytest.approx(_row(index.agent(row["id"])))  # type: ignore[arg-type]
    assert sum(r["conflicts"] for r in index.rows) > 0 and all(r["decisions"] == 30 for r in index.rows)
    run = RunData.open(fresh)
    written = Counter(e["type"] for e in run.iter_events(*MIND) if e["source"].startswith("household:"))
    assert index.summary["mind_events"] == dict(written)


def test_a_page_reads_only_its_agents_row_groups_and_equals_one_made_from_all_events(
    fresh: Path, tmp_path: Path
) -> None:
    index = RunIndex.open(fresh, ExploreConfig(group_rows=7))
    meta, ranges = index.store._footer(ROWS)
    assert meta.num_rows == 12 * 30 and len(ranges) == -(-360 // 7)
    read = [g for g in ranges if g[0] <= 5 <= g[1]]
    assert 5 <= len(read) <= 6 < len(ranges)  # its 30 rows lie in 5 or 6 of the 52 groups of 7
    rows = index.store.rows(ROWS, 5)
    assert rows is not None and rows.column("tick").to_pylist() == list(range(1, 31))
    decided = index.store.rows(index.store.names("events/mind.decision/")[0], 5)
    assert decided is not None and set(decided.column("source").to_pylist()) == {"household:5"}
    res = CliRunner().invoke(app, ["export", str(fresh), "--csv", "--out", str(tmp_path / "jsonl")])
    assert res.exit_code == 0, res.output
    shutil.copy(fresh / "config.json", tmp_path / "jsonl")
    held = RunIndex.open(tmp_path / "jsonl")  # no event parts: its pages come from events held in memory
    assert not held.run.columnar and held._events is not None
    assert list(held.run.event_parts("mind.decision")) == []
    assert len(held.rows) == len(index.rows)
    for theirs, mine in zip(held.rows, index.rows, strict=True):  # the CSV tables keep 10 significant digits
        assert theirs == pytest.approx(mine)
    for agent in (0, 5, 11):
        mine, theirs = index.agent(agent), held.agent(agent)
        assert mine is not None and theirs is not None
        assert mine["conflicts"] == theirs["conflicts"] and mine["decisions"] == theirs["decisions"]
        for m in range(1, 31):  # a month's decision gets back the texts its page was made without
            got, want = index.month(agent, m), held.month(agent, m)
            assert got is not None and want is not None and got["decision"] == want["decision"]
        assert mine["memories"] == theirs["memories"] and mine["moves"] == theirs["moves"]
        assert all(mine["persona"][k] == pytest.approx(v) for k, v in theirs["persona"].items())
        assert mine["guardrails"] == theirs["guardrails"] and mine["beliefs"] == theirs["beliefs"]
    assert held.agent(5) is held.agent(5) and index.agent(12) is None


def test_the_cache_is_read_on_a_later_open_and_rebuilt_when_the_run_changes(fresh: Path) -> None:
    first = RunIndex.open(fresh)
    page = first.agent(3)
    decided, _ = first.store._footer(first.store.names(TEXT_COPIES)[0])
    table, _ = first.store._footer(ROWS)  # long rows (briefings) get shorter row groups: ~256 KB each
    assert decided.row_group(0).num_rows < min(table.row_group(0).num_rows, decided.num_rows)
    again = RunIndex(RunData.open(fresh))
    assert again.load() and again.rows == first.rows and again.summary == first.summary
    assert again.agent(3) == page and again.month(3, 30) == first.month(3, 30)  # from the cached copies
    gone = fresh / ".explore" / f"{first.store.names('events/memory.formed/')[0]}.parquet"
    gone.rename(gone.with_suffix(".away"))
    assert not RunIndex(RunData.open(fresh)).load()  # a copy is missing: rebuilt
    gone.with_suffix(".away").rename(gone)
    config = fresh / "config.json"
    stat = config.stat()
    os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert not RunIndex(RunData.open(fresh)).load()
    rebuilt = RunIndex.open(fresh)
    assert rebuilt.rows == first.rows and RunIndex(RunData.open(fresh)).load()


def test_a_folder_that_cannot_hold_the_cache_keeps_the_copies_in_memory(fresh: Path) -> None:
    (fresh / ".explore").write_text("a file where the cache folder would be")
    index = RunIndex.open(fresh)
    assert index.store.memory and ROWS in index.store.memory
    assert not RunIndex(RunData.open(fresh)).load()
    page = index.agent(7)
    assert page is not None and len(page["persona"]["tick"]) == 30 and page["decisions"]
    month = index.month(7, page["decisions"][-1]["tick"])
    assert month is not None and month["decision"]["briefing"].startswith("Persona:")
    assert index.store.names(TEXT_COPIES) and not index.store.held  # the texts too, in memory


def test_the_reader_gives_each_event_part_with_its_json_columns(fresh: Path) -> None:
    run = RunData.open(fresh)
    got = list(run.event_parts("mind.decision", ["tick", "source", "conflicts"]))
    assert got and sum(t.num_rows for t, _ in got) == run.event_counts["mind.decision"]
    table, json_cols = got[0]
    assert table.column_names == ["tick", "source", "conflicts"] and "conflicts" in json_cols


def test_exploring_a_run_leaves_the_memory_stack_unloaded() -> None:
    """The app and the index import no memory module: a run opens without paying for them."""
    code = ("import sys, psychoagent.explore.app, psychoagent.explore.index; "
            "print(sorted(m for m in sys.modules if m.startswith(('psychoagent.memory', 'psychoagent.service.hub'))))")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "[]"


def test_pages_read_every_decision_column_but_the_texts_which_months_get_before_they_are_written(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = RunData.open(fresh)
    for table, _ in run.event_parts(KIND):  # a key a trace gains must be read by name too, or months lose it
        assert set(table.column_names) - set(TEXTS) <= set(LIGHT)
    with pytest.raises(TimeoutError, match="texts"):  # not read: a month waits `texts_wait` (the API: 503)
        RunIndex(run, ExploreConfig(texts_wait=0)).month(5, 3)
    index = RunIndex(run)
    monkeypatch.setattr(index.store, "flush", lambda: None)  # the texts stay held in memory
    index.build()
    assert index.texted.is_set() and index.store.held and not (fresh / ".explore" / TEXT_COPIES).exists()
    early = [index.month(5, m) for m in range(1, 31)]
    assert all(m and m["decision"]["briefing"].startswith("Persona:") for m in early)
    monkeypatch.undo()
    index.store.flush()
    assert not index.store.held and (fresh / ".explore" / TEXT_COPIES).is_dir()
    assert [index.month(5, m) for m in range(1, 31)] == early
    page = index.agent(5)
    assert page is not None and all(
        "briefing" not in t and "recalled" not in t for t in page["traces"].values()
    )


def test_pages_answer_from_the_tables_held_in_memory_as_from_the_copies_written_after(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = RunIndex(RunData.open(fresh), ExploreConfig(group_rows=7))
    monkeypatch.setattr(index.store, "flush", lambda: None)  # nothing written: pages come from memory
    index.build()
    assert index.paged.is_set() and ROWS in index.store.held
    assert not (fresh / ".explore" / f"{ROWS}.parquet").exists()
    early = {agent: index.agent(agent) for agent in range(12)}
    monkeypatch.undo()
    index.store.flush()
    index._pages.clear()
    assert not index.store.held and (fresh / ".explore" / f"{ROWS}.parquet").is_file()
    for agent, page in early.items():
        assert page is not None and page["memories"] and page["decisions"]
        assert index.agent(agent) == page


def test_the_explorers_process_can_choose_pyarrows_allocator() -> None:
    import pyarrow as pa

    from psychoagent.explore.index import use_memory_pool

    before = pa.default_memory_pool()
    try:
        use_memory_pool("system")
        assert pa.default_memory_pool().backend_name == "system"
        for kept in ("", "no-such-pool"):  # the default stays
            use_memory_pool(kept)
            assert pa.default_memory_pool().backend_name == "system"
    finally:
        pa.set_memory_pool(before)
