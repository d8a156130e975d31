"""A table held in memory gives one household's rows in their order without being sorted, across its chunks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from psychoagent.explore.store import KEY, Keyed, keyed


def _chunked(key: np.ndarray) -> pa.Table:
    """Rows numbered `n` with household `key`, in three record batches (as a big part is read)."""
    cuts = ((0, 3), (3, 5), (5, len(key)))
    return pa.Table.from_batches([pa.record_batch({"n": np.arange(i, j), "k": key[i:j]}) for i, j in cuts])


def test_a_households_rows_come_from_every_chunk_in_table_order_or_in_the_order_given() -> None:
    key = np.array([2, 0, 1, 0, 2, 0, 1, 2])
    table = _chunked(key)
    assert table.column("n").num_chunks == 3
    held = Keyed(table, key)
    for h in (0, 1, 2):
        got = held.rows(h)
        assert got is not None and got.column("n").to_pylist() == np.flatnonzero(key == h).tolist()
    assert held.rows(3) is None and held.rows(-1) is None
    backwards = Keyed(table, key, np.lexsort((-np.arange(len(key)), key)))  # each household's last row first
    got = backwards.rows(0)
    assert got is not None and got.column("n").to_pylist() == [5, 3, 1]
    written = held.sorted()
    assert written.column(KEY).to_pylist() == sorted(key.tolist())
    assert written.column("n").to_pylist() == [1, 3, 5, 2, 6, 0, 4, 7]


def test_an_event_part_is_held_by_the_household_its_source_names_and_trimmed_as_asked() -> None:
    part = pa.table({"source": ["household:1", "firm:0", "household:0", "household:1"], "x": [1, 2, 3, 4]})
    held = keyed(part, finish=lambda t: t.drop_columns(["source"]))
    one = held.rows(1)
    assert one is not None and one.to_pylist() == [{"x": 1}, {"x": 4}]
    assert held.sorted().column_names == ["x", KEY] and held.sorted().column("x").to_pylist() == [3, 1, 4]
