"""Per-agent copies of a run's tables for the explorer: every mind-event part and the agents table, sorted by
household (`source`) in small row groups and cached beside the run, so one agent's page decodes a few row groups
instead of whole event parts, in which the households of a month are interleaved.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from psychoagent.explore.config import ExploreConfig

KEY = "source"
"""The column every copy is sorted and looked up by: `household:N`, as in the events' envelope."""
PREFIX = "household:"
JSON_META = b"json"
"""Schema metadata naming the JSON-text columns of an event part (kept on its copy, read back with it)."""
AGENTS = "agents"


def source(agent_id: int) -> str:
    """The `source` of household `agent_id`'s events and rows."""
    return f"{PREFIX}{agent_id}"


def households(table: pa.Table) -> pa.Table:
    """The rows of `table` whose source is a household, sorted by it (stably: each household's rows keep their
    order)."""
    table = table.filter(pc.starts_with(table.column(KEY), PREFIX))
    return table.take(pc.sort_indices(table, [(KEY, "ascending")]))


def json_columns(table: pa.Table) -> frozenset[str]:
    """The JSON-text columns named in a table's schema metadata."""
    meta = (table.schema.metadata or {}).get(JSON_META, b"").decode()
    return frozenset(n for n in meta.split(",") if n)


class AgentStore:
    """The sorted copies of one run: files under `folder`, or tables in memory when it cannot be written."""

    def __init__(self, folder: Path, config: ExploreConfig) -> None:
        self.folder = folder
        self.config = config
        self.memory: dict[str, pa.Table] | None = None
        """Copies held in memory (None: they are files)."""
        self._groups: dict[str, tuple[pq.FileMetaData, list[tuple[str, str]]]] = {}
        """Per file, its footer and each row group's smallest and largest `source` (read once)."""
        self._lock = threading.Lock()

    # -- writing ------------------------------------------------------------------------------------------------
    def clear(self) -> None:
        """Remove the copies of an earlier build (a run may have fewer parts now)."""
        for name in (AGENTS, "events"):
            shutil.rmtree(self.folder / name, ignore_errors=True)
        self._groups.clear()

    def put(self, name: str, table: pa.Table) -> None:
        """Keep the sorted `table` as copy `name` (`agents/rows` or `events/<type>/<part>`): a file written under
        a temporary name and renamed, or, once the folder proves not writable, in memory."""
        if self.memory is None:
            target = self.folder / f"{name}.parquet"
            tmp = target.with_name(f".{target.name}.tmp")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(table, tmp, row_group_size=self.config.group_rows,
                               compression=self.config.compression)  # fmt: skip
                os.replace(tmp, target)
                return
            except OSError:
                self.memory = {}
        self.memory[name] = table

    # -- reading ------------------------------------------------------------------------------------------------
    def names(self, prefix: str) -> list[str]:
        """The copies whose name starts with `prefix` (`events/<type>/` or `agents/`), in writing order."""
        if self.memory is not None:
            return sorted(n for n in self.memory if n.startswith(prefix))
        root = self.folder / prefix
        if not root.is_dir():
            return []
        return sorted(f"{prefix}{p.stem}" for p in root.glob("*.parquet"))

    def rows(self, name: str, agent_id: int) -> pa.Table | None:
        """The rows of household `agent_id` in copy `name` (None when it has none): only the row groups whose
        `source` range holds it are read."""
        key = source(agent_id)
        if self.memory is not None:
            table = self.memory.get(name)
            return None if table is None else self._only(table, key)
        meta, ranges = self._footer(name)
        wanted = [i for i, (low, high) in enumerate(ranges) if low <= key <= high]
        if not wanted:
            return None
        file = pq.ParquetFile(self.folder / f"{name}.parquet", metadata=meta)
        return self._only(file.read_row_groups(wanted, use_threads=False), key)

    def each(self, prefix: str, agent_id: int) -> Iterator[pa.Table]:
        """Household `agent_id`'s rows in every copy under `prefix`, in writing order."""
        for name in self.names(prefix):
            table = self.rows(name, agent_id)
            if table is not None:
                yield table

    def _footer(self, name: str) -> tuple[pq.FileMetaData, list[tuple[str, str]]]:
        """Copy `name`'s footer and each row group's smallest and largest `source`, read once."""
        with self._lock:
            if name not in self._groups:
                meta = pq.read_metadata(self.folder / f"{name}.parquet")
                col = meta.schema.to_arrow_schema().get_field_index(KEY)
                ranges = []
                for i in range(meta.num_row_groups):
                    stats = meta.row_group(i).column(col).statistics
                    has = stats is not None and stats.has_min_max
                    ranges.append((str(stats.min), str(stats.max)) if has else ("", "\uffff"))
                self._groups[name] = (meta, ranges)
            return self._groups[name]

    @staticmethod
    def _only(table: pa.Table, key: str) -> pa.Table | None:
        rows = table.filter(pc.equal(table.column(KEY), key))
        return rows if rows.num_rows else None
