"""The one reader of run folders: config.json and the macro, agents and assets tables and the events, as frames.

A run folder is columnar (macro.parquet, agents.parquet, assets.parquet and events/<type>/part-*.parquet, see
agent.eventlog) or, written before that, macro.csv, agents.csv, assets.csv and events.jsonl; both read the same here,
and only the columns and event types asked for are read from a columnar one. Only config.json and the macro table
are required; metrics that need a missing table are reported as not available.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from psychoagent.agent import eventlog

WEALTH_COLUMNS = ("net_worth", "total_wealth", "wealth")
"""agents table columns tried in order for an agent's wealth (net worth with holdings when markets exist)."""
TABLES = ("macro", "agents", "assets")
EVENTS_FOLDER = "events"
JOURNAL = "events.jsonl"


_loads: Callable[[str], Any] = json.loads
"""The JSON line parser: orjson's where it is installed (several times faster), else the standard one."""
with contextlib.suppress(ImportError):  # orjson is optional: the standard parser reads the same
    from orjson import loads as _loads


def _read_csv(path: Path, columns: Iterable[str] | None = None) -> pd.DataFrame | None:
    if not path.is_file() or path.stat().st_size == 0:
        return None
    wanted = None if columns is None else set(columns)
    try:
        df = pd.read_csv(path, usecols=None if wanted is None else (lambda c: c in wanted))
    except pd.errors.EmptyDataError:
        return None
    return df if not df.empty else None


def iter_events(path: Path, types: Iterable[str] | None = None, prefix: str | None = None) -> Iterator[dict]:
    """Events of an events.jsonl file one by one, optionally only the given types or types starting with `prefix`.

    Lines are filtered on the raw text before parsing (one pattern for all the types), so scanning a large file for
    a rare type stays cheap; lines are parsed with orjson where it is installed (several times faster).
    """
    if not path.is_file():
        return
    wanted = set(types) if types is not None else None
    quoted = re.compile("|".join(f'"{re.escape(str(t))}"' for t in sorted(wanted))) if wanted else None
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if wanted is not None and (quoted is None or quoted.search(line) is None):
                continue
            if prefix is not None and f'"{prefix}' not in line:
                continue
            try:
                event = _loads(line)
            except json.JSONDecodeError:
                continue
            kind = str(event.get("type", ""))
            if wanted is not None and kind not in wanted:
                continue
            if prefix is not None and not kind.startswith(prefix):
                continue
            yield event


def _column(name: str) -> str:
    """The event-log column of a name given to `event_frame`: an envelope name or `payload.<key>` as is, else the
    column of that payload key."""
    return name if name in eventlog.ENVELOPE or name.startswith("payload.") else eventlog.column_name(name)


@dataclass
class RunData:
    """One run directory; tables load on first use and are cached."""

    path: Path
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, path: str | Path) -> RunData:
        """Check that `path` is a run directory (config.json and a macro table present) and wrap it."""
        folder = Path(path)
        missing = [n for n in ("config.json",) if not (folder / n).is_file()]
        if not (folder / "macro.parquet").is_file() and not (folder / "macro.csv").is_file():
            missing.append("macro.parquet (or macro.csv)")
        if missing:
            raise FileNotFoundError(f"{folder} is not a run directory: missing {', '.join(missing)}")
        return cls(folder)

    @cached_property
    def columnar(self) -> bool:
        """Whether the run is written in Parquet (else CSV tables and events.jsonl)."""
        return (self.path / "macro.parquet").is_file()

    def file(self, name: str) -> Path:
        """The file of table `name` ('macro', 'agents', 'assets') or of 'events', in this run's format."""
        if name == "events":
            return self.path / (EVENTS_FOLDER if self.columnar else JOURNAL)
        return self.path / f"{name}.{'parquet' if self.columnar else 'csv'}"

    def has(self, name: str) -> bool:
        """Whether table `name` or 'events' was written (it may still be empty)."""
        p = self.file(name)
        return p.is_dir() if p.suffix == "" else p.is_file()

    @cached_property
    def config(self) -> dict[str, Any]:
        """config.json as a dict."""
        data = json.loads((self.path / "config.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}

    # -- tables -------------------------------------------------------------------------------------------------
    def _header(self, name: str) -> tuple[list[str], bool]:
        """Table `name`'s column names and whether it has rows (([], False) when missing), read from its header."""
        key = f"columns:{name}"
        if key not in self._cache:
            p = self.file(name)
            self._cache[key] = ([], False)
            if p.is_file() and p.stat().st_size > 0 and self.columnar:
                meta = pq.ParquetFile(p).metadata
                self._cache[key] = (list(meta.schema.to_arrow_schema().names), meta.num_rows > 0)
            elif p.is_file() and p.stat().st_size > 0:
                with contextlib.suppress(pd.errors.EmptyDataError):
                    head = pd.read_csv(p, nrows=1)
                    self._cache[key] = (list(head.columns), len(head) > 0)
        return self._cache[key]

    def columns(self, name: str) -> list[str]:
        """The column names of table `name` ([] when it is missing; its header's when it has no rows)."""
        return list(self._header(name)[0])

    def table(self, name: str, columns: Iterable[str] | None = None) -> pd.DataFrame | None:
        """Table `name` with only `columns` (those it has; all when None), or None when it is missing or empty."""
        wanted = None if columns is None else [c for c in dict.fromkeys(columns) if c in self.columns(name)]
        p = self.file(name)
        if not self.columnar:
            return _read_csv(p, wanted)
        if not p.is_file():
            return None
        df = pq.read_table(p, columns=wanted).to_pandas()
        if df.empty:
            return None
        narrow = [c for c in df.columns if df[c].dtype == np.float32]  # a float32 table is summed in float64
        return df.astype(dict.fromkeys(narrow, np.float64)) if narrow else df

    @cached_property
    def macro(self) -> pd.DataFrame:
        """The macro table (one row per tick)."""
        df = self.table("macro")
        if df is None:
            raise ValueError(f"{self.file('macro')} is empty")
        return df

    @cached_property
    def agents(self) -> pd.DataFrame | None:
        """The whole agents table (one row per agent per tick), or None when absent or empty; `agent_frame` reads
        only some columns."""
        return self.table("agents")

    @cached_property
    def assets(self) -> pd.DataFrame | None:
        """The assets table (one row per asset per trading period), or None when absent or empty."""
        return self.table("assets")

    def agent_frame(self, *columns: str) -> pd.DataFrame | None:
        """`tick`, `agent_id` and the given agents-table columns it has (cached by column), or None without rows."""
        if "agents" in self.__dict__ or not self.columnar:
            whole = self.agents
            if whole is None:
                return None
            return whole[["tick", "agent_id", *[c for c in dict.fromkeys(columns) if c in whole.columns]]]
        have = self.columns("agents")
        names = [c for c in dict.fromkeys(("tick", "agent_id", *columns)) if c in have]
        todo = [c for c in names if f"agents:{c}" not in self._cache]
        if todo:
            df = self.table("agents", todo)
            if df is None:
                return None
            for c in todo:
                self._cache[f"agents:{c}"] = df[c]
        return pd.DataFrame({c: self._cache[f"agents:{c}"] for c in names})

    def agent_table(self, *columns: str) -> pa.Table | None:
        """`agent_frame` as an Arrow table, its floats as written (readers that stay in Arrow skip pandas)."""
        if not self.columnar or "agents" in self.__dict__:
            frame = self.agent_frame(*columns)
            return None if frame is None else pa.Table.from_pandas(frame, preserve_index=False)
        have, rows = self._header("agents")
        if not rows:
            return None
        names = [c for c in dict.fromkeys(("tick", "agent_id", *columns)) if c in have]
        return pq.read_table(self.file("agents"), columns=names)

    # -- events -------------------------------------------------------------------------------------------------
    def event_types(self) -> list[str]:
        """The event types the run wrote, sorted."""
        if self.columnar:
            return eventlog.event_types(self.file("events"))
        return sorted(self.event_counts)

    @cached_property
    def event_counts(self) -> Counter[str]:
        """How many events of each type the run wrote."""
        if self.columnar:
            folder = self.file("events")
            return Counter({t: eventlog.count(folder, t) for t in eventlog.event_types(folder)})
        counts: Counter[str] = Counter()
        for event in iter_events(self.file("events")):
            counts[str(event.get("type", ""))] += 1
        return counts

    def events(self, *types: str, prefix: str | None = None, keys: Iterable[str] | None = None) -> list[dict]:
        """Events of the given types (or with a type prefix such as 'negotiation.'), in publication order, as the
        bus's dicts; `keys` limits the payload keys read from a columnar run."""
        chosen = tuple(keys) if keys is not None else None
        key = f"events:{prefix}:{','.join(sorted(types))}:{chosen}"
        if key not in self._cache:
            self._cache[key] = list(self.iter_events(*types, prefix=prefix, keys=chosen))
        return list(self._cache[key])

    def iter_events(
        self, *types: str, prefix: str | None = None, keys: Iterable[str] | None = None, ordered: bool = True
    ) -> Iterator[dict]:
        """`events` one by one, uncached; with `ordered` False a columnar run gives them type after type (each
        type in publication order), which spares merging the types."""
        if not self.columnar:
            yield from iter_events(self.file("events"), types or None, prefix)
            return
        folder = self.file("events")
        kinds = [t for t in eventlog.event_types(folder) if (not types or t in types)]
        kinds = [t for t in kinds if prefix is None or t.startswith(prefix)]
        columns = (
            None if keys is None else [*eventlog.ENVELOPE, eventlog.ABSENT, *map(eventlog.column_name, keys)]
        )
        streams = [self._type_events(folder, t, columns) for t in kinds]
        if not ordered or len(streams) == 1:
            yield from itertools.chain.from_iterable(streams)
        else:
            yield from heapq.merge(*streams, key=lambda e: int(e["seq"]))

    @staticmethod
    def _type_events(folder: Path, kind: str, columns: list[str] | None) -> Iterator[dict]:
        for part in eventlog.parts(folder, kind):
            table, json_cols = eventlog.read_part(part, columns)
            yield from eventlog.payloads(table, json_cols, kind)

    def event_parts(
        self, kind: str, columns: Iterable[str] | None = None
    ) -> Iterator[tuple[pa.Table, frozenset[str]]]:
        """Each Parquet part of one event type as a table (only the `columns` it has, when given) with its JSON-text
        column names, in publication order, for readers that work on columns; none for a run with events.jsonl."""
        if self.columnar:
            for part in eventlog.parts(self.file("events"), kind):
                yield eventlog.read_part(part, columns)

    def event_frame(self, kind: str, columns: Iterable[str] | None = None) -> pd.DataFrame | None:
        """Events of one type as a frame: envelope `seq`, `tick`, `source` and payload keys as columns (a key named
        like the envelope as `payload.<key>`; nested values as JSON text), reading only `columns` from a columnar
        run; None without such events."""
        names = None if columns is None else [_column(c) for c in columns]
        if self.columnar:
            table = eventlog.read_table(self.file("events"), kind, names)
            df = None if table is None or table.num_rows == 0 else table.to_pandas()
        else:
            rows = [{"seq": e.get("seq"), "tick": e.get("tick"), "source": e.get("source"),
                     **{eventlog.column_name(k): v for k, v in (e.get("payload") or {}).items()}}
                    for e in self.iter_events(kind)]  # fmt: skip
            df = pd.DataFrame(rows) if rows else None
            if df is not None and names is not None:
                df = df[[c for c in names if c in df.columns]]
        if df is None:
            return None
        renamed = {c: eventlog.payload_key(c) for c in df.columns if c.startswith("payload.")}
        return df.rename(columns={c: k for c, k in renamed.items() if k not in eventlog.ENVELOPE})

    # -- derived ------------------------------------------------------------------------------------------------
    def stamp(self) -> dict[str, list[int]]:
        """Size and modification time (ns) of each run file present: a cache built from the run is valid while
        this is unchanged."""
        files = [self.path / "config.json", *(self.file(t) for t in TABLES)]
        events = self.file("events")
        files += sorted(events.glob(f"*/{eventlog.PART_GLOB}")) if events.is_dir() else [events]
        out = {}
        for p in files:
            if p.is_file():
                st = p.stat()
                out[str(p.relative_to(self.path))] = [st.st_size, st.st_mtime_ns]
        return out

    def household_index(self) -> dict[int, int]:
        """agents-table `agent_id` (the Mesa id) -> household index (events' `household:N` and order payloads):
        the model creates its households in index order after the firms, so the index is the rank of the id."""
        ids = self.agent_frame()
        if ids is None:
            return {}
        return {int(a): i for i, a in enumerate(sorted(ids["agent_id"].unique()))}

    def shocks(self) -> list[dict[str, Any]]:
        """The scenario's shocks as written in config.json (kind, start, duration, ...)."""
        scen = self.config.get("scenario") or {}
        return [dict(s) for s in scen.get("shocks", []) if isinstance(s, dict)]

    @property
    def ticks(self) -> int:
        """Number of ticks in the macro table."""
        return len(self.macro)

    @property
    def wealth_column(self) -> str | None:
        """The agents-table column used as an agent's wealth, or None without an agents table."""
        have, rows = self._header("agents")
        return next((c for c in WEALTH_COLUMNS if c in have), None) if rows else None

    def shock_ticks(self) -> list[int]:
        """Start ticks of the scenario's shocks (regime changes), sorted and unique."""
        scen = self.config.get("scenario") or {}
        starts = {int(s["start"]) for s in scen.get("shocks", []) if isinstance(s, dict) and "start" in s}
        return sorted(starts)

    def panel(self, column: str) -> pd.DataFrame | None:
        """agents-table `column` as a tick x agent frame (None when the table or column is missing)."""
        df = self.agent_frame(column)
        if df is None or column not in df.columns:
            return None
        return df.pivot_table(index="tick", columns="agent_id", values=column, aggfunc="first").sort_index()
