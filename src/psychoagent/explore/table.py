"""The explorer's agents table from column reads: each household's last traits, wealth and employment from the
agents table, its affect and counts from a few columns of its mind events, so a run opens without decoding them
(only the conflicts listed by traced decisions are parsed, to count each pair once). Arrow and NumPy throughout:
on a big run pandas' frames cost more than the reads.
"""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.explore.page import LABELS, MIND, SERIES, TRAITS, num
from psychoagent.explore.store import PREFIX, Keyed

_loads: Callable[[str], Any] = json.loads
with contextlib.suppress(ImportError):  # orjson is optional: the standard parser reads the same, slower
    from orjson import loads as _loads

Column: TypeAlias = pa.ChunkedArray | list[Any]
"""A column of mind events: Arrow from a columnar run, a list from events.jsonl (nested values as lists)."""


def agents_table(run: RunData) -> Keyed | None:
    """The agents-table columns an agent's page shows with each row's household index (the rank of its Mesa id,
    as in `RunData.household_index`), ordered by household then month; None without an agents table."""
    wealth = run.wealth_column
    table = run.agent_table(*TRAITS, *SERIES, *LABELS, *([wealth] if wealth else []))
    if table is None:
        return None
    _, household = np.unique(table.column("agent_id").to_numpy(), return_inverse=True)
    household = household.astype("int64").reshape(-1)
    order = np.lexsort((table.column("tick").to_numpy(), household))
    return Keyed(table.drop_columns(["agent_id"]), household, order)


def _by_household(run: RunData, kind: str, columns: list[str]) -> tuple[np.ndarray, dict[str, Column]]:
    """Events of one type from households: their household indices and the `columns` they have, in publication
    order (the source parsed in Arrow for a columnar run)."""
    if not run.columnar:
        frame = run.event_frame(kind, ["source", *columns])
        if frame is None:
            return np.zeros(0, np.int64), {}
        frame = frame[frame["source"].astype(str).str.startswith(PREFIX)]
        household = frame["source"].str.slice(len(PREFIX)).astype("int64").to_numpy()
        return household, {c: frame[c].tolist() for c in columns if c in frame.columns}
    parts = [table for table, _ in run.event_parts(kind, ["source", *columns])]
    if not parts:
        return np.zeros(0, np.int64), {}
    table = pa.concat_tables(parts, promote_options="permissive")
    mask = pc.starts_with(table.column("source"), PREFIX)
    if not pc.all(mask).as_py():
        table = table.filter(mask)
    household = pc.cast(pc.utf8_slice_codeunits(table.column("source"), len(PREFIX)), pa.int64())
    return household.to_numpy(), {c: table.column(c) for c in columns if c in table.column_names}


def _numbers(values: Column | None, size: int, default: float) -> np.ndarray:
    """A numeric column as floats, missing values (or a missing column) as `default`."""
    if values is None:
        return np.full(size, default)
    if isinstance(values, pa.ChunkedArray):
        return pc.fill_null(values.cast(pa.float64()), default).to_numpy()
    return np.array([default if v is None or v != v else v for v in values], dtype=float)


def _last_of_month(household: np.ndarray, tick: np.ndarray) -> np.ndarray:
    """Indices of each household's last traced decision of each month (a month may have been traced twice)."""
    key = household * (int(tick.max()) + 1) + tick
    _, first = np.unique(key[::-1], return_index=True)
    return np.sort(len(key) - 1 - first)


def _conflicts(household: np.ndarray, latest: np.ndarray, listed: Column | None) -> dict[int, int]:
    """Distinct conflict pairs (a, b) per household over the traced decisions `latest`; a list repeated from month
    to month is parsed once."""
    if listed is None or not len(latest):
        return {}
    if isinstance(listed, pa.ChunkedArray):  # JSON text: "[]" lists none
        some = pc.fill_null(pc.greater(pc.utf8_length(listed), 2), False).to_numpy(zero_copy_only=False)
        keep = np.zeros(len(household), bool)
        keep[latest] = True
        keep &= some
        chosen = np.flatnonzero(keep)
        raws: list[Any] = listed.filter(pa.array(keep)).to_pylist()  # a take would join the parts first
    else:
        chosen = np.array([i for i in latest if isinstance(listed[i], str | list) and listed[i] not in ("[]", [])],
                          dtype=np.int64)  # fmt: skip
        raws = [listed[i] for i in chosen]
    pairs: dict[int, set[tuple[Any, Any]]] = defaultdict(set)
    seen: set[tuple[int, str]] = set()
    for h, raw in zip(household[chosen].tolist(), raws, strict=True):
        if isinstance(raw, str):
            if (h, raw) in seen:
                continue
            seen.add((h, raw))
            raw = _loads(raw)
        for c in raw:
            pairs[h].add((c.get("a"), c.get("b")))
    return {h: len(p) for h, p in pairs.items()}


def _last_rows(agents: Keyed, wealth: str | None) -> dict[int, dict[str, Any]]:
    """Each household's row of the table from its last month in the agents table."""
    if not len(agents.keys):
        return {}
    ends = np.flatnonzero(np.r_[agents.keys[1:] != agents.keys[:-1], True])
    rows = {}
    last = agents.table.take(pa.array(agents.order[ends])).to_pylist()
    for h, got in zip(agents.keys[ends].tolist(), last, strict=True):
        worked = num(got.get("worked"))
        rows[h] = {"id": h, "persona": str(got.get("persona", "")), "sector": str(got.get("sector", "")),
                   "wealth": num(got.get(wealth)) if wealth else None, "income": num(got.get("income")),
                   "employed": None if worked is None else bool(worked > 0.5),
                   **{t: num(got.get(t)) for t in TRAITS}}  # fmt: skip
    return rows


def table_rows(run: RunData, agents: Keyed | None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every household's row of the agents table (sorted by id), and how many mind events of each type the
    households wrote."""
    counts, kinds = {}, {}
    for kind in MIND:
        wanted = {EventType.MEMORY_FORMED: ["count", "valence", "arousal"],
                  EventType.MIND_DECISION: ["tick", "conflicts"]}.get(kind, [])  # fmt: skip
        kinds[kind] = _by_household(run, kind, wanted)
        if len(kinds[kind][0]):
            counts[str(kind)] = len(kinds[kind][0])
    rows = _last_rows(agents, run.wealth_column) if agents is not None else {}
    for h in sorted(set().union(*(np.unique(k).tolist() for k, _ in kinds.values())) - set(rows)):
        rows[h] = {"id": h, "persona": "", "sector": "", "wealth": None, "income": None, "employed": None,
                   **dict.fromkeys(TRAITS)}  # fmt: skip
    size = max(rows) + 1 if rows else 0

    def per(household: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(household, weights, minlength=size)

    by, got = kinds[EventType.MEMORY_FORMED]
    formed = per(by)
    valence = per(by, _numbers(got.get("valence"), len(by), 0)) / np.maximum(formed, 1)
    arousal = per(by, _numbers(got.get("arousal"), len(by), 1)) / np.maximum(formed, 1)
    memories = per(by, _numbers(got.get("count"), len(by), 1))
    decided, got = kinds[EventType.MIND_DECISION]
    latest = np.zeros(0, np.int64)
    if len(decided) and "tick" in got:
        latest = _last_of_month(decided, _numbers(got["tick"], len(decided), 0).astype(np.int64))
    traced = per(decided[latest])
    moves = per(kinds[EventType.PERSONA_EVOLVED][0])
    conflicts = _conflicts(decided, latest, got.get("conflicts"))
    for h, row in rows.items():
        row["valence"] = round(float(valence[h]), 3) if formed[h] else None
        row["arousal"] = round(float(arousal[h]), 3) if formed[h] else None
        row["memories"] = int(memories[h])
        row["conflicts"] = conflicts.get(h, 0)
        row["decisions"] = int(traced[h])
        row["moves"] = int(moves[h])
    return [rows[h] for h in sorted(rows)], counts
