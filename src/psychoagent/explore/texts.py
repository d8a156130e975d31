"""The long texts of traced decisions (the briefing and the recalled memories, most of a run's decoded mind events)
kept apart from agent pages: the per-agent copies a page needs are written without them first, so pages answer
sooner; the texts are read next and a month's come from their own copies (held in memory until written).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from psychoagent.agent.eventlog import ABSENT, json_columns, payloads
from psychoagent.events import EventType
from psychoagent.explore.store import SOURCE

KIND = str(EventType.MIND_DECISION)
"""The event type whose texts are kept apart."""
TEXTS = ("briefing", "recalled")
"""Its long payload keys: shown only on a month's page."""
LIGHT = ("seq", "tick", SOURCE, "reused", "beliefs", "conflicts", "decision", "approved", "adjusted", "rejected",
         "vetoed", "beliefs_as", f"{TEXTS[1]}_as", ABSENT)  # fmt: skip
"""Its other columns, read by name to leave the texts undecoded (a test checks that a traced run has no more)."""
FIRST_LINE = {str(EventType.PERSONA_EVOLVED): "explanation"}
"""Keys of which a page shows only the first line (a persona update's explanation lists every trait after it)."""
UNUSED = {str(EventType.MEMORY_FORMED): ("ids",)}
"""Keys no page shows."""
Texts = dict[int, dict[str, Any]]
"""One household's texts: month -> the keys of TEXTS its trace has (the last trace of a month)."""


def light(kind: str, table: pa.Table) -> pa.Table:
    """An event part as agent pages need it: without the texts kept apart or unused keys, first lines only."""
    gone = [n for n in (*(TEXTS if kind == KIND else ()), *UNUSED.get(kind, ())) if n in table.column_names]
    table = table.drop_columns(gone) if gone else table
    name = FIRST_LINE.get(kind)
    if name is not None and name in table.column_names:
        first = pc.list_element(pc.split_pattern(table.column(name), "\n", max_splits=1), 0)
        table = table.set_column(table.column_names.index(name), name, first)
    return table


def columns() -> list[str]:
    """The columns of a mind.decision part its texts' copies hold (envelope, TEXTS and the absent keys)."""
    return ["seq", "tick", SOURCE, *TEXTS, ABSENT]


def texts(tables: Iterable[pa.Table], ticks: set[int]) -> Texts:
    """Months `ticks` -> texts, from one household's rows of text copies (in publication order: a month's last
    trace wins); only those months' rows are decoded."""
    out: Texts = {}
    wanted = pa.array(sorted(ticks), pa.int64())
    for table in tables:
        rows = table.filter(pc.is_in(table.column("tick"), wanted))
        for event in payloads(rows, json_columns(table.schema), KIND):
            out[int(event["tick"])] = event["payload"]
    return out


def resolve(trace: dict[str, Any], got: Texts, tick: int) -> dict[str, Any]:
    """A light trace of month `tick` with its texts (a recall written once is found at the month it names)."""
    out = {**trace, **got.get(tick, {})}
    month = out.pop(f"{TEXTS[1]}_as", None)
    if month is not None:
        out[TEXTS[1]] = got.get(int(month), {}).get(TEXTS[1], [])
    return out
