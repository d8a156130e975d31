"""The explorer's agents table from column reads: each household's last traits, wealth and employment from the
agents table, its affect and counts from a few columns of its mind events, so a run opens without decoding them
(only the conflicts listed by traced decisions are parsed, to count each pair once).
"""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.explore.page import LABELS, MIND, SERIES, TRAITS, num
from psychoagent.explore.store import PREFIX

_loads: Callable[[str], Any] = json.loads
with contextlib.suppress(ImportError):  # orjson is optional: the standard parser reads the same, slower
    from orjson import loads as _loads


def agents_frame(run: RunData) -> pd.DataFrame | None:
    """The agents-table columns an agent's page shows, in the table's order, with each row's household index
    (`household`, the rank of its Mesa id, as in `RunData.household_index`); None without an agents table."""
    wealth = run.wealth_column
    frame = run.agent_frame(*TRAITS, *SERIES, *LABELS, *([wealth] if wealth else []))
    if frame is None:
        return None
    _, household = np.unique(frame["agent_id"].to_numpy(), return_inverse=True)
    return frame.assign(household=household.astype("int64"))


def _by_household(run: RunData, kind: str, columns: list[str]) -> pd.DataFrame:
    """Events of one type from households: `household` and the `columns` they have, in publication order (the
    source parsed in Arrow for a columnar run)."""
    empty = pd.DataFrame({"household": pd.Series(dtype="int64")})
    if not run.columnar:
        frame = run.event_frame(kind, ["source", *columns])
        if frame is None:
            return empty
        frame = frame[frame["source"].astype(str).str.startswith(PREFIX)]
        return frame.drop(columns=["source"]).assign(
            household=frame["source"].str.slice(len(PREFIX)).astype("int64")
        )
    parts = [table for table, _ in run.event_parts(kind, ["source", *columns])]
    if not parts:
        return empty
    table = pa.concat_tables(parts, promote_options="permissive")
    mask = pc.starts_with(table.column("source"), PREFIX)
    if not pc.all(mask).as_py():
        table = table.filter(mask)
    household = pc.cast(pc.utf8_slice_codeunits(table.column("source"), len(PREFIX)), pa.int64())
    return table.drop_columns(["source"]).to_pandas().assign(household=household.to_numpy())


def _conflicts(decisions: pd.DataFrame) -> dict[int, int]:
    """Distinct conflict pairs (a, b) per household over its traced months (the last trace of a month counts);
    a list repeated from month to month is parsed once."""
    if "conflicts" not in decisions.columns:
        return {}
    latest = decisions.drop_duplicates(["household", "tick"], keep="last")
    listed = latest["conflicts"]
    some = listed.notna() & (listed.astype(str).str.len() > 2) if len(listed) else listed.notna()  # not "[]"
    lists = latest.loc[some, ["household", "conflicts"]]
    if len(lists) and isinstance(lists["conflicts"].iloc[0], str):
        lists = lists.drop_duplicates()
    pairs: dict[int, set[tuple[Any, Any]]] = defaultdict(set)
    for h, raw in zip(lists["household"].tolist(), lists["conflicts"].tolist(), strict=True):
        for c in _loads(raw) if isinstance(raw, str) else raw:
            pairs[h].add((c.get("a"), c.get("b")))
    return {h: len(p) for h, p in pairs.items()}


def table_rows(run: RunData, frame: pd.DataFrame | None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every household's row of the agents table (sorted by id), and how many mind events of each type the
    households wrote."""
    counts, kinds = {}, {}
    for kind in MIND:
        wanted = {EventType.MEMORY_FORMED: ["count", "valence", "arousal"],
                  EventType.MIND_DECISION: ["tick", "conflicts"]}.get(kind, [])  # fmt: skip
        kinds[kind] = _by_household(run, kind, wanted)
        if len(kinds[kind]):
            counts[str(kind)] = len(kinds[kind])
    rows: dict[int, dict[str, Any]] = {}
    if frame is not None:
        wealth = run.wealth_column
        by_tick = frame if frame["tick"].is_monotonic_increasing else frame.sort_values("tick", kind="stable")
        for got in by_tick.drop_duplicates("household", keep="last").to_dict("records"):
            worked = num(got.get("worked"))
            rows[int(got["household"])] = {
                "id": int(got["household"]), "persona": str(got.get("persona", "")), "sector": str(got.get("sector", "")),
                "wealth": num(got.get(wealth)) if wealth else None, "income": num(got.get("income")),
                "employed": None if worked is None else bool(worked > 0.5), **{t: num(got.get(t)) for t in TRAITS},
            }  # fmt: skip
    memories = kinds[EventType.MEMORY_FORMED]
    for h in sorted(set().union(*(set(k["household"].unique()) for k in kinds.values())) - set(rows)):
        rows[int(h)] = {"id": int(h), "persona": "", "sector": "", "wealth": None, "income": None,
                        "employed": None, **dict.fromkeys(TRAITS)}  # fmt: skip
    affect = memories.assign(
        valence=memories["valence"].fillna(0) if "valence" in memories else 0,
        arousal=memories["arousal"].fillna(1) if "arousal" in memories else 1,
        count=memories["count"].fillna(1) if "count" in memories else 1,
    ).groupby("household")
    valence, arousal = affect["valence"].mean().to_dict(), affect["arousal"].mean().to_dict()
    formed = affect["count"].sum().to_dict()
    decisions = kinds[EventType.MIND_DECISION]
    decided = (
        decisions.drop_duplicates(["household", "tick"]).groupby("household").size() if len(decisions) else {}
    )
    moves = kinds[EventType.PERSONA_EVOLVED].groupby("household").size()
    conflicts = _conflicts(decisions)
    for h, row in rows.items():
        row["valence"] = round(float(valence[h]), 3) if h in valence else None
        row["arousal"] = round(float(arousal[h]), 3) if h in arousal else None
        row["memories"] = int(formed.get(h, 0))
        row["conflicts"] = conflicts.get(h, 0)
        row["decisions"] = int(decided.get(h, 0))
        row["moves"] = int(moves.get(h, 0))
    return [rows[h] for h in sorted(rows)], counts
