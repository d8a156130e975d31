"""A run directory read into frames: config.json, macro.csv, agents.csv, assets.csv and events.jsonl.

Only config.json and macro.csv are required; the other files (markets, per-agent tables, cognition events) are
optional, and metrics that need a missing one are reported as not available.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

WEALTH_COLUMNS = ("net_worth", "total_wealth", "wealth")
"""agents.csv columns tried in order for an agent's wealth (net worth with holdings when markets exist)."""


_loads: Callable[[str], Any] = json.loads
"""The JSON line parser: orjson's where it is installed (several times faster), else the standard one."""
with contextlib.suppress(ImportError):  # orjson is optional: the standard parser reads the same
    from orjson import loads as _loads


def _read_csv(path: Path) -> pd.DataFrame | None:
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        df = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return None
    return df if not df.empty else None


def iter_events(path: Path, types: Iterable[str] | None = None, prefix: str | None = None) -> Iterator[dict]:
    """Events of events.jsonl one by one, optionally only the given types or types starting with `prefix`.

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


@dataclass
class RunData:
    """One run directory; tables load on first use and are cached."""

    path: Path
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, path: str | Path) -> RunData:
        """Check that `path` is a run directory (config.json and macro.csv present) and wrap it."""
        folder = Path(path)
        missing = [n for n in ("config.json", "macro.csv") if not (folder / n).is_file()]
        if missing:
            raise FileNotFoundError(f"{folder} is not a run directory: missing {', '.join(missing)}")
        return cls(folder)

    @cached_property
    def config(self) -> dict[str, Any]:
        """config.json as a dict."""
        data = json.loads((self.path / "config.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}

    @cached_property
    def macro(self) -> pd.DataFrame:
        """macro.csv (one row per tick)."""
        df = _read_csv(self.path / "macro.csv")
        if df is None:
            raise ValueError(f"{self.path / 'macro.csv'} is empty")
        return df

    @cached_property
    def agents(self) -> pd.DataFrame | None:
        """agents.csv (one row per agent per tick), or None when absent or empty."""
        return _read_csv(self.path / "agents.csv")

    @cached_property
    def assets(self) -> pd.DataFrame | None:
        """assets.csv (one row per asset per trading period), or None when absent or empty."""
        return _read_csv(self.path / "assets.csv")

    @cached_property
    def event_counts(self) -> Counter[str]:
        """How many events of each type events.jsonl holds."""
        counts: Counter[str] = Counter()
        for event in iter_events(self.path / "events.jsonl"):
            counts[str(event.get("type", ""))] += 1
        return counts

    def events(self, *types: str, prefix: str | None = None) -> list[dict]:
        """Events of the given types (or with a type prefix such as 'negotiation.'), in file order."""
        key = f"events:{prefix}:{','.join(sorted(types))}"
        if key not in self._cache:
            chosen = types or None
            self._cache[key] = list(iter_events(self.path / "events.jsonl", chosen, prefix))
        return list(self._cache[key])

    def stamp(self) -> dict[str, list[int]]:
        """Size and modification time (ns) of each run file present: a cache built from the run is valid while
        this is unchanged."""
        out = {}
        for name in ("config.json", "macro.csv", "agents.csv", "assets.csv", "events.jsonl"):
            p = self.path / name
            if p.is_file():
                st = p.stat()
                out[name] = [st.st_size, st.st_mtime_ns]
        return out

    def household_index(self) -> dict[int, int]:
        """agents.csv `agent_id` (the Mesa id) -> household index (events' `household:N` and order payloads): the
        model creates its households in index order after the firms, so the index is the rank of the id."""
        if self.agents is None:
            return {}
        return {int(a): i for i, a in enumerate(sorted(self.agents["agent_id"].unique()))}

    def shocks(self) -> list[dict[str, Any]]:
        """The scenario's shocks as written in config.json (kind, start, duration, ...)."""
        scen = self.config.get("scenario") or {}
        return [dict(s) for s in scen.get("shocks", []) if isinstance(s, dict)]

    @property
    def ticks(self) -> int:
        """Number of ticks in macro.csv."""
        return len(self.macro)

    @property
    def wealth_column(self) -> str | None:
        """The agents.csv column used as an agent's wealth, or None without agents.csv."""
        if self.agents is None:
            return None
        return next((c for c in WEALTH_COLUMNS if c in self.agents.columns), None)

    def shock_ticks(self) -> list[int]:
        """Start ticks of the scenario's shocks (regime changes), sorted and unique."""
        scen = self.config.get("scenario") or {}
        starts = {int(s["start"]) for s in scen.get("shocks", []) if isinstance(s, dict) and "start" in s}
        return sorted(starts)

    def panel(self, column: str) -> pd.DataFrame | None:
        """agents.csv `column` as a tick x agent frame (None when the table or column is missing)."""
        df = self.agents
        if df is None or column not in df.columns:
            return None
        return df.pivot_table(index="tick", columns="agent_id", values=column, aggfunc="first").sort_index()
