"""Parquet event log: events read back equal the JSONL journal's lines, across parts, drift and a killed writer."""

from __future__ import annotations

import heapq
import json

import pyarrow.parquet as pq

from psychoagent.agent.bus import EventBus
from psychoagent.agent.eventlog import (
    EventLog,
    EventLogSettings,
    count,
    event_types,
    parts,
    payloads,
    read_part,
    read_table,
)


def _publish(bus: EventBus) -> None:
    """Events with typed, nested, drifting, null, absent, non-finite and envelope-named payload keys."""
    for t in range(40):
        bus.emit(
            t, "market.filled", {"price": 1.5 * t, "qty": t, "side": "buy", "ok": t % 2 == 0, "tick": t - 1}
        )
        payload = {"kinds": {"loss": t}, "ids": [t, t + 1], "mixed": t if t % 3 else "x", "gone": None}
        if t % 5 == 0:
            payload["clash"] = f"c{t}"  # an optional key
        if t >= 20:
            payload["later"] = float("nan") if t == 25 else t  # a key that appears mid-run, once non-finite
        if t == 30:
            del payload["gone"]
        bus.emit(t, "memory.formed", payload, source=f"household:{t % 4}")
        deltas = {"optimism": -0.01 * t, f"optimism[{'bond' if t % 2 else 'steel'}]": 0.5 - t / 7}
        if t == 33:
            deltas["count"] = 2  # an integer among the floats: that batch's maps go to JSON text
        bus.emit(t, "persona.evolved", {"deltas": deltas if t != 12 else None, "empty": {}})
        if t % 10 == 0:
            bus.emit(t, "env.updated", {"price": t if t < 20 else 0.5, "seq": "mine", "payload.x": 1})


def _jsonl(tmp_path) -> list[dict]:
    with EventBus(journal=tmp_path / "events.jsonl") as bus:
        _publish(bus)
    return [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]


def _read_all(folder) -> list[dict]:
    streams = []
    for kind in event_types(folder):
        rows = []
        for p in parts(folder, kind):
            table, json_cols = read_part(p)
            rows += list(payloads(table, json_cols, kind))
        streams.append(rows)
    return list(heapq.merge(*streams, key=lambda e: e["seq"]))


def test_events_read_back_equal_the_journal_lines(tmp_path) -> None:
    expected = _jsonl(tmp_path)
    settings = EventLogSettings(batch_rows=7, part_rows=15)  # several batches per part, several parts
    with EventBus(sink=EventLog(tmp_path / "events", settings)) as bus:
        _publish(bus)
    assert _read_all(tmp_path / "events") == expected
    assert len(parts(tmp_path / "events", "memory.formed")) == 2  # 21 rows, then the last 19 at close
    assert count(tmp_path / "events", "memory.formed") == 40
    persona = parts(tmp_path / "events", "persona.evolved")
    schema = pq.read_schema(persona[0])  # maps of names to floats: one float column per name
    assert (
        str(schema.field("deltas").type)
        == "struct<optimism: double, optimism[steel]: double, optimism[bond]: double>"
    )
    assert schema.field("empty").type == "string"  # empty maps stay JSON text
    assert any("deltas" in read_part(p)[1] for p in persona[1:])  # the batch with an integer: JSON text


def test_payload_scalars_are_typed_columns_and_nested_values_json_text(tmp_path) -> None:
    with EventBus(sink=EventLog(tmp_path / "ev")) as bus:
        _publish(bus)
    schema = pq.read_schema(parts(tmp_path / "ev", "market.filled")[0])
    assert {n: str(schema.field(n).type) for n in ("seq", "tick", "price", "qty", "side", "ok", "payload.tick")} == {
        "seq": "int64", "tick": "int64", "price": "double", "qty": "int64", "side": "string", "ok": "bool",
        "payload.tick": "int64",
    }  # fmt: skip
    table = read_table(tmp_path / "ev", "memory.formed", ["tick", "kinds", "later", "absent_column"])
    assert table is not None and table.column_names == ["tick", "kinds", "later"]
    assert json.loads(table.column("kinds")[3].as_py()) == {"loss": 3}
    assert table.column("later").to_pylist()[25] is None


def test_float_maps_pack_smaller_than_json_text(tmp_path) -> None:
    with EventBus(sink=EventLog(tmp_path / "ev")) as bus:
        for t in range(2000):
            bus.emit(t, "persona.evolved", {"deltas": {"risk": t / 7, "optimism": -t / 9, "calm": 0.0}})
    as_struct = parts(tmp_path / "ev", "persona.evolved")[0].stat().st_size
    with EventBus(sink=EventLog(tmp_path / "ev2")) as bus:
        for t in range(2000):
            bus.emit(t, "persona.evolved", {"deltas": {"risk": t / 7, "optimism": -t / 9, "calm": 0}})
    assert "deltas" in (read_part(parts(tmp_path / "ev2", "persona.evolved")[0])[1])  # an int: JSON text
    assert as_struct < 0.75 * parts(tmp_path / "ev2", "persona.evolved")[0].stat().st_size


def test_a_part_is_written_once_its_columns_reach_the_byte_limit(tmp_path) -> None:
    settings = EventLogSettings(batch_rows=2, part_bytes=1)  # every batch is a part of its own
    with EventBus(sink=EventLog(tmp_path / "ev", settings)) as bus:
        for t in range(6):
            bus.emit(t, "mind.decision", {"briefing": "x" * 1000})
    assert len(parts(tmp_path / "ev", "mind.decision")) == 3
    assert count(tmp_path / "ev", "mind.decision") == 6


def test_a_killed_writer_leaves_only_whole_parts(tmp_path) -> None:
    log = EventLog(tmp_path / "ev", EventLogSettings(batch_rows=5, part_rows=10))
    bus = EventBus(sink=log)
    _publish(bus)  # never closed: the last rows of each type are lost, the parts written are whole
    (tmp_path / "ev" / "memory.formed" / ".part-000009.parquet.tmp").write_bytes(b"half a part")
    events = _read_all(tmp_path / "ev")
    formed = [e for e in events if e["type"] == "memory.formed"]
    assert [e["tick"] for e in formed] == list(range(40))
    assert [e["tick"] for e in events if e["type"] == "market.filled"] == list(range(40))
    assert not any(e["type"] == "env.updated" for e in events)  # 4 events: under one batch, never written
