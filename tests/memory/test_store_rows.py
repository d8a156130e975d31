"""Units read back from a store are built without validating again and equal the validated units."""

from __future__ import annotations

import json

from psychoagent import Memory
from psychoagent.memory.stores.rows import row_to_unit
from psychoagent.types import Affect, MemoryUnit


def test_read_units_equal_validated_ones() -> None:
    mem = Memory(embedder="hash")
    mem.observe("The budget is 1000 yuan.", goals=["Keep the budget under 2000 yuan"])
    mem.observe("Terrible news: the client cancelled the order!", metadata={"topic": "sales", "n": 2})
    old = mem.observe("Alice lives in Berlin.", sources=["doc-1"])
    mem.supersede(old.id, "Alice moved to Lyon.")
    mem.recall("Alice", k=2)  # access counts and times written
    units = mem.units()
    assert any(u.invalid_at is not None for u in units) and any(u.access_count for u in units)
    for unit in units:
        validated = MemoryUnit.model_validate(unit.model_dump())
        assert unit == validated
        assert unit.model_dump_json() == validated.model_dump_json()
        assert unit.model_fields_set == validated.model_fields_set
        assert isinstance(unit.affect, Affect) and unit.affect == Affect.model_validate(
            unit.affect.model_dump()
        )
    mem.close()


def test_older_affect_json_is_still_validated() -> None:
    """Stored JSON with labels only (older code) gets its scores from the labels, as validation gives them."""
    row = (1, "default", "u1", "text", "h", "episodic", "long_term", json.dumps({"valence": -2, "arousal": 3}),
           "", "[]", "{}", 1.7e9, None, None, 0, None)  # fmt: skip
    unit = row_to_unit(row)
    assert unit.affect.valence_score == -2.0 and unit.affect.arousal_score == 3.0
    assert unit.affect == Affect(valence=-2, arousal=3)


def test_batch_insert_rows_equal_the_per_unit_values() -> None:
    """`unit_rows` (the SQLite batch insert) gives what `unit_values` gives each unit, for units of every shape."""
    from datetime import UTC, datetime

    from psychoagent.memory.stores.rows import unit_rows, unit_values

    mem = Memory(embedder="hash")
    units = mem.observe_many(["plain one", "plain two"])
    units.append(mem.observe("Terrible news: the order was cancelled!", metadata={"n": 2, "x": "é"}))
    units.append(mem.observe("derived note", sources=["a", "b"], goals=["keep costs low"], kind="semantic"))
    changed = units[0].model_copy(deep=True)
    changed.invalid_at = changed.last_accessed_at = datetime(2024, 5, 1, tzinfo=UTC)
    changed.access_count, changed.tier = 3, "working"
    units.append(changed)
    hashes = [f"h{i}" for i in range(len(units))]
    pks = list(range(10, 10 + len(units)))
    expected = [(pk, *unit_values(u, h), 7) for pk, u, h in zip(pks, units, hashes, strict=True)]
    assert list(unit_rows(pks, units, hashes, 7)) == expected
    assert (
        expected[2][10] != expected[0][10]
    )  # a non-neutral affect is serialised, not the shared neutral JSON
    mem.close()
