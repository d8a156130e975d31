"""Per-agent copies of a run's tables for the explorer: every mind-event part and the agents table, sorted by
household (an added `_household` column) in small row groups and cached beside the run, so one agent's page decodes
a few row groups instead of whole event parts, in which the households of a month are interleaved. Until a copy is
written its table is held in memory unsorted, with its rows' order by household (`Keyed`), so pages answer at once.
"""

from __future__ import annotations

import math
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from psychoagent.explore.config import ExploreConfig

KEY = "_household"
"""The column every copy is sorted and looked up by: the household index (N of the events' `household:N`)."""
SOURCE = "source"
PREFIX = "household:"


class Keyed:
    """A table held with each row's household and the rows' stable order by household: one household's rows are
    taken without sorting the table (sorted only when written as a copy); `finish` trims what a page does not show."""

    def __init__(self, table: pa.Table, key: np.ndarray, order: np.ndarray | None = None,
                 finish: Callable[[pa.Table], pa.Table] | None = None) -> None:  # fmt: skip
        self.table = table
        self.order = np.argsort(key, kind="stable") if order is None else order
        self.keys = key[self.order]
        self.finish = finish
        self._batches = table.to_batches()
        """Taken from one by one: a take from a table of several chunks first joins each column's chunks."""
        self._starts = np.cumsum([0, *(b.num_rows for b in self._batches)])

    def rows(self, agent_id: int) -> pa.Table | None:
        """Household `agent_id`'s rows in their order (None when it has none)."""
        low, high = np.searchsorted(self.keys, [agent_id, agent_id + 1])
        if low == high:
            return None
        picked = self.order[low:high]
        batch = np.searchsorted(self._starts, picked, side="right") - 1
        by_batch = np.argsort(batch, kind="stable")
        pieces = [
            self._batches[b].take(pa.array(picked[batch == b] - self._starts[b])) for b in np.unique(batch)
        ]
        rows = pa.Table.from_batches(pieces, self.table.schema)
        if np.any(by_batch[1:] < by_batch[:-1]):  # rows of later batches came before: back in order
            rows = rows.take(pa.array(np.argsort(by_batch)))
        return rows if self.finish is None else self.finish(rows)

    def sorted(self) -> pa.Table:
        """The whole table sorted by household, with the household index as column KEY (the copy's layout)."""
        table = self.table.take(pa.array(self.order))
        table = table if self.finish is None else self.finish(table)
        return table.append_column(KEY, pa.array(self.keys, pa.int64()))


def keyed(table: pa.Table, finish: Callable[[pa.Table], pa.Table] | None = None) -> Keyed:
    """The rows of an event part whose source is a household, held with their household index (N of `household:N`)."""
    mask = pc.starts_with(table.column(SOURCE), PREFIX)
    if not pc.all(mask).as_py():
        table = table.filter(mask)
    key = pc.cast(pc.utf8_slice_codeunits(table.column(SOURCE), len(PREFIX)), pa.int64())
    return Keyed(table, key.to_numpy(), finish=finish)


class AgentStore:
    """The sorted copies of one run: files under `folder`, or tables in memory when it cannot be written."""

    def __init__(self, folder: Path, config: ExploreConfig) -> None:
        self.folder = folder
        self.config = config
        self.memory: dict[str, pa.Table] | None = None
        """Copies held in memory (None: they are files)."""
        self.written: list[str] = []
        """The copies, in writing order (listed in the cache's index.json, which a later open checks)."""
        self.held: dict[str, Keyed] = {}
        """Copies kept in memory, unsorted, until `flush` writes them (read meanwhile from here)."""
        self._groups: dict[str, tuple[pq.FileMetaData, list[tuple[float, float]]]] = {}
        """Per file, its footer and each row group's smallest and largest household (read once)."""
        self._lock = threading.Lock()

    # -- writing ------------------------------------------------------------------------------------------------
    def clear(self) -> None:
        """Remove the copies of an earlier build (a run may have fewer parts now) and find out whether the folder
        can hold new ones; if not they are kept in memory."""
        for name in ("agents", "events", "texts"):
            shutil.rmtree(self.folder / name, ignore_errors=True)
        self._groups.clear()
        self.written, self.held = [], {}
        try:
            (self.folder / "events").mkdir(parents=True, exist_ok=True)
            probe = self.folder / ".probe"
            probe.write_bytes(b"")
            probe.unlink()
            self.memory = None
        except OSError:
            self.memory = {}

    def put(self, name: str, table: pa.Table) -> None:
        """Keep `table`, sorted by its column KEY, as copy `name` (`agents/rows` or `events/<type>/<part>`): in
        memory when `clear` found the folder not writable, else a file written under a temporary name and renamed.
        Statistics only for KEY and no dictionaries: long texts made them cost a fifth of the size and time."""
        self.written.append(name)
        if self.memory is not None:
            self.memory[name] = table
            return
        target = self.folder / f"{name}.parquet"
        tmp = target.with_name(f".{target.name}.tmp")
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, tmp, row_group_size=self._group_rows(table),
                       compression=self.config.compression, use_dictionary=False,
                       write_statistics=[KEY])  # fmt: skip
        os.replace(tmp, target)

    def hold(self, name: str, table: Keyed) -> None:
        """Keep copy `name` in memory (pages read it from there at once), to be sorted and written by `flush`."""
        self.held[name] = table

    def flush(self) -> None:
        """Write the copies `hold` kept, in order, each dropped from memory once written."""
        for name in list(self.held):
            self.put(name, self.held[name].sorted())
            del self.held[name]

    def _group_rows(self, table: pa.Table) -> int:
        """Rows per row group: about `group_bytes` decoded, within `group_rows` (traced decisions are long)."""
        per_row = max(table.nbytes // max(table.num_rows, 1), 1)
        return min(max(self.config.group_bytes // per_row, 16), self.config.group_rows)

    # -- reading ------------------------------------------------------------------------------------------------
    def names(self, prefix: str) -> list[str]:
        """The copies whose name starts with `prefix` (`events/<type>/`, `texts/<type>/` or `agents/`), in writing
        order, those still held included."""
        held = tuple(self.held)  # before `written`: `flush` lists a copy there before dropping it from here
        return [n for n in dict.fromkeys([*self.written, *held]) if n.startswith(prefix)]

    def complete(self, names: list[str]) -> bool:
        """Whether every copy `names` lists is on disk (a later open takes them as `written`)."""
        if not all((self.folder / f"{n}.parquet").is_file() for n in names):
            return False
        self.written = list(names)
        return True

    def rows(self, name: str, agent_id: int) -> pa.Table | None:
        """The rows of household `agent_id` in copy `name`, without KEY (None when it has none): only the row
        groups whose household range holds it are read."""
        held = self.held.get(name)
        if held is not None:
            return held.rows(agent_id)
        if self.memory is not None:
            table = self.memory.get(name)
            return None if table is None else self._only(table, agent_id)
        meta, ranges = self._footer(name)
        wanted = [i for i, (low, high) in enumerate(ranges) if low <= agent_id <= high]
        if not wanted:
            return None
        file = pq.ParquetFile(self.folder / f"{name}.parquet", metadata=meta)
        return self._only(file.read_row_groups(wanted, use_threads=False), agent_id)

    def each(self, prefix: str, agent_id: int) -> Iterator[pa.Table]:
        """Household `agent_id`'s rows in every copy under `prefix`, in writing order."""
        for name in self.names(prefix):
            table = self.rows(name, agent_id)
            if table is not None:
                yield table

    def _footer(self, name: str) -> tuple[pq.FileMetaData, list[tuple[float, float]]]:
        """Copy `name`'s footer and each row group's smallest and largest household, read once."""
        with self._lock:
            if name not in self._groups:
                meta = pq.read_metadata(self.folder / f"{name}.parquet")
                col = meta.schema.to_arrow_schema().get_field_index(KEY)
                ranges = []
                for i in range(meta.num_row_groups):
                    stats = meta.row_group(i).column(col).statistics
                    has = stats is not None and stats.has_min_max
                    ranges.append((stats.min, stats.max) if has else (-math.inf, math.inf))
                self._groups[name] = (meta, ranges)
            return self._groups[name]

    @staticmethod
    def _only(table: pa.Table, agent_id: int) -> pa.Table | None:
        rows = table.filter(pc.equal(table.column(KEY), agent_id))
        return rows.drop_columns([KEY]) if rows.num_rows else None
