"""Bus events as Parquet: one dataset per event type (`events/<type>/part-NNNNNN.parquet`), payload keys as columns.

Envelope columns are `seq`, `tick` and `source`; each payload key is a column of its own, typed when its values are
(bool, int, float or str), a struct of float columns when they are maps of names to floats (a persona's deltas),
else JSON text (other nested values, mixed types) named in the schema's `json` metadata. A
payload key that is an envelope name is stored as `payload.<key>`. Keys missing from some events of a part are
listed per row in `_absent`, so a reader tells an absent key from a null one. Parts are written to a temporary
name and renamed: a killed run leaves only whole parts.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, Field

from psychoagent.agent.bus import _LINE, Event, _finite

ENVELOPE = ("seq", "tick", "source")
ABSENT = "_absent"
"""Column listing, comma-separated, the payload keys an event lacks among its part's columns (null: none)."""
JSON_KEY = b"json"
"""Schema metadata: comma-separated names of the columns that hold JSON text."""
PART_GLOB = "part-*.parquet"

_loads: Callable[[str], Any] = json.loads
"""The JSON-text parser: orjson's where it is installed (the same values, several times faster)."""
with contextlib.suppress(ImportError):
    from orjson import loads as _loads


class EventLogSettings(BaseModel):
    """How events are batched into Parquet parts (memory held per type against the number of files)."""

    model_config = ConfigDict(extra="forbid")

    batch_rows: int = Field(4096, ge=1, description="events of one type turned into columns at a time")
    part_rows: int = Field(262_144, ge=1, description="events of one type per part file (one row group)")
    part_bytes: int = Field(
        64 << 20,
        ge=1,
        description="a part is written once its columns take this much memory (long briefings)",
    )
    compression: str = Field("zstd", description="Parquet codec")
    compression_level: int = Field(6, ge=1, le=22, description="zstd level")
    split_floats: bool = Field(
        True,
        description="float columns byte-stream-split and without a dictionary: lossless, and zstd then packs "
        "them 10-25 % smaller (Parquet's BYTE_STREAM_SPLIT encoding, made for floating-point data)",
    )
    table_floats: Literal["float32", "float64"] = Field(
        "float32",
        description="precision of the per-household table's floats: float32 keeps 7 significant digits (a cent "
        "on 100,000) and halves the largest file of a run; readers get float64 back",
    )


def write_atomic(table: pa.Table, target: Path, settings: EventLogSettings, **options: Any) -> None:
    """Write `table` to `target` through a temporary file renamed at the end: readers see all of it or none."""
    tmp = target.with_name(f".{target.name}.tmp")
    floats = [f.name for f in table.schema if pa.types.is_floating(f.type)]
    floats += [f"{f.name}.{c.name}" for f in table.schema if pa.types.is_struct(f.type) for c in f.type
               if pa.types.is_floating(c.type)]  # fmt: skip
    if settings.split_floats and floats:
        options.setdefault("use_byte_stream_split", floats)
        plain = [
            f.name
            for f in table.schema
            if not pa.types.is_floating(f.type) and not pa.types.is_struct(f.type)
        ]
        options.setdefault("use_dictionary", plain)
    pq.write_table(table, tmp, compression=settings.compression, compression_level=settings.compression_level,
                   **options)  # fmt: skip
    os.replace(tmp, target)


def column_name(key: str) -> str:
    """The column that holds payload key `key` (envelope names and `payload.`-prefixed keys get the prefix)."""
    return f"payload.{key}" if key in ENVELOPE or key == ABSENT or key.startswith("payload.") else key


def payload_key(column: str) -> str:
    """The payload key a (non-envelope) column holds."""
    return column[len("payload.") :] if column.startswith("payload.") else column


def _json_text(value: Any) -> str:
    try:
        return _LINE.encode(value)
    except (TypeError, ValueError):
        return json.dumps(_finite(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


_MISSING = object()


def _typed(values: list[Any]) -> tuple[pa.Array, bool]:
    """Values of one key as an Arrow array, and whether it holds JSON text (non-finite floats become null)."""
    kinds = {type(v) for v in values if v is not None and v is not _MISSING}
    plain = [None if v is _MISSING else v for v in values]
    if kinds == {float} or kinds == {int, float}:
        return pa.array(
            [None if v is None or not math.isfinite(v) else float(v) for v in plain], pa.float64()
        ), False
    if kinds in ({bool}, {str}, set()):
        return pa.array(plain, {frozenset({bool}): pa.bool_(), frozenset({str}): pa.string()}.get(
            frozenset(kinds), pa.null())), False  # fmt: skip
    if kinds == {int}:
        try:
            return pa.array(plain, pa.int64()), False
        except (OverflowError, pa.ArrowInvalid):
            pass
    if kinds == {dict} and _float_maps(plain):
        fields = list(dict.fromkeys(k for v in plain if v is not None for k in v))
        return pa.array(plain, pa.struct([(k, pa.float64()) for k in fields])), False
    return pa.array([None if v is None else _json_text(v) for v in plain], pa.string()), True


def _float_maps(values: list[Any]) -> bool:
    """Whether every value is a non-empty-overall map of text keys to finite floats: such a key is stored as a
    struct of float columns (a field missing from a row reads back absent), which packs several times smaller than
    JSON text."""
    seen = False
    for v in values:
        if v is None:
            continue
        for k, x in v.items():
            if type(k) is not str or type(x) is not float or not math.isfinite(x):
                return False
            seen = True
    return seen


@dataclass
class _Batch:
    table: pa.Table
    absent: list[str | None]
    json_cols: frozenset[str]


def _batch(rows: list[Event]) -> _Batch:
    """A few events of one type as columns."""
    keys: dict[str, None] = {}
    for e in rows:
        keys.update(dict.fromkeys(e.payload))
    arrays = {
        "seq": pa.array([e.seq for e in rows], pa.int64()),
        "tick": pa.array([e.tick for e in rows], pa.int64()),
        "source": pa.array([e.source for e in rows], pa.string()),
    }
    json_cols = set()
    absent: list[list[str]] = [[] for _ in rows]
    for key in keys:
        values = [e.payload.get(key, _MISSING) for e in rows]
        for i, v in enumerate(values):
            if v is _MISSING:
                absent[i].append(key)
        arr, is_json = _typed(values)
        arrays[column_name(key)] = arr
        if is_json:
            json_cols.add(column_name(key))
    return _Batch(pa.table(arrays), [",".join(a) if a else None for a in absent], frozenset(json_cols))


def _fits(a: _Batch, b: _Batch) -> bool:
    """Whether two batches can share a part: same JSON columns where both have them, promotable types."""
    for name in set(a.table.column_names) & set(b.table.column_names):
        ta, tb = a.table.schema.field(name).type, b.table.schema.field(name).type
        if (name in a.json_cols) != (name in b.json_cols) and not (
            pa.types.is_null(ta) or pa.types.is_null(tb)
        ):
            return False
        numeric = {pa.int64(), pa.float64()}
        structs = pa.types.is_struct(ta) and pa.types.is_struct(tb)  # float maps: fields merge by name
        if ta != tb and not (pa.types.is_null(ta) or pa.types.is_null(tb) or {ta, tb} <= numeric or structs):
            return False
    return True


@dataclass
class _Pending:
    rows: list[Event] = field(default_factory=list)
    batches: list[_Batch] = field(default_factory=list)
    count: int = 0
    nbytes: int = 0
    parts: int = 0


class EventLog:
    """A bus journal (`EventBus(sink=...)`) writing one Parquet dataset per event type under `folder`."""

    def __init__(self, folder: str | Path, settings: EventLogSettings | None = None) -> None:
        self.folder = Path(folder)
        self.settings = settings or EventLogSettings()
        self._types: dict[str, _Pending] = {}
        self.folder.mkdir(parents=True, exist_ok=True)

    def write(self, event: Event) -> None:
        """Buffer one event; its type's columns are built every `batch_rows` and written every `part_rows`."""
        pending = self._types.get(event.type)
        if pending is None:
            pending = self._types[event.type] = _Pending()
        pending.rows.append(event)
        if len(pending.rows) >= self.settings.batch_rows:
            self._convert(event.type, pending)

    def _convert(self, kind: str, pending: _Pending) -> None:
        batch = _batch(pending.rows)
        pending.rows = []
        if pending.batches and not all(_fits(b, batch) for b in pending.batches):
            self._write_part(kind, pending)
        pending.batches.append(batch)
        pending.count += batch.table.num_rows
        pending.nbytes += batch.table.nbytes
        if pending.count >= self.settings.part_rows or pending.nbytes >= self.settings.part_bytes:
            self._write_part(kind, pending)

    def _write_part(self, kind: str, pending: _Pending) -> None:
        """Write the type's converted batches as one part (temporary name, then rename)."""
        if not pending.batches:
            return
        names: dict[str, None] = {}
        for b in pending.batches:
            names.update(dict.fromkeys(b.table.column_names))
        absent: list[str | None] = []
        for b in pending.batches:
            lacking = [payload_key(n) for n in names if n not in b.table.column_names]
            extra = ",".join(lacking)
            absent += [f"{a},{extra}" if a else extra for a in b.absent] if lacking else b.absent
        table = pa.concat_tables([b.table for b in pending.batches], promote_options="permissive")
        table = table.select(list(names))
        if any(absent):
            table = table.append_column(ABSENT, pa.array(absent, pa.string()))
        json_cols = sorted(set().union(*(b.json_cols for b in pending.batches)))
        table = table.replace_schema_metadata({JSON_KEY: ",".join(json_cols).encode()})
        target = self.folder / kind / f"part-{pending.parts:06d}.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(table, target, self.settings, row_group_size=max(table.num_rows, 1))
        pending.batches, pending.count, pending.nbytes = [], 0, 0
        pending.parts += 1

    def flush(self) -> None:
        """Nothing to push between parts: a part is written whole or not at all."""

    def close(self) -> None:
        """Write every type's buffered events as a last part."""
        for kind, pending in self._types.items():
            if pending.rows:
                self._convert(kind, pending)
            self._write_part(kind, pending)


# -- reading ----------------------------------------------------------------------------------------------------
def event_types(folder: str | Path) -> list[str]:
    """The event types with at least one part under `folder`, sorted."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob(PART_GLOB)))


def parts(folder: str | Path, kind: str) -> list[Path]:
    """The part files of one event type, in writing (= publication) order."""
    return sorted((Path(folder) / kind).glob(PART_GLOB))


def count(folder: str | Path, kind: str) -> int:
    """How many events of `kind` the log holds (from the parts' footers, nothing else read)."""
    return sum(pq.ParquetFile(p).metadata.num_rows for p in parts(folder, kind))


def json_columns(schema: pa.Schema) -> frozenset[str]:
    """The JSON-text columns a part's schema names in its metadata (kept on tables read or copied from it)."""
    meta = (schema.metadata or {}).get(JSON_KEY, b"").decode()
    return frozenset(n for n in meta.split(",") if n)


def read_part(path: Path, columns: Iterable[str] | None = None) -> tuple[pa.Table, frozenset[str]]:
    """One part (only the `columns` it has, when given) and the names of its JSON-text columns."""
    schema = pq.read_schema(path)
    cols = None if columns is None else [c for c in dict.fromkeys(columns) if c in schema.names]
    return pq.read_table(path, columns=cols), json_columns(schema)


def read_table(folder: str | Path, kind: str, columns: Iterable[str] | None = None) -> pa.Table | None:
    """Every part of one type as one table (columns missing from a part are null there); None without parts.
    JSON-text columns stay text: `payloads` decodes them."""
    tables = [read_part(p, columns)[0] for p in parts(folder, kind)]
    if not tables:
        return None
    return pa.concat_tables(tables, promote_options="permissive")


def payloads(table: pa.Table, json_cols: frozenset[str], kind: str) -> Iterator[dict[str, Any]]:
    """The events of one part as the bus's dicts (`tick`, `type`, `source`, `payload`, `seq`), absent keys left
    out and JSON text decoded."""
    names = [n for n in table.column_names if n not in ENVELOPE and n != ABSENT]
    cols = {n: table.column(n).to_pylist() for n in names}
    for n in json_cols & set(names):
        cols[n] = [None if v is None else _loads(v) for v in cols[n]]
    for n in names:  # a float map's fields missing from a row are null in its struct
        if pa.types.is_struct(table.schema.field(n).type):
            cols[n] = [None if v is None else {k: x for k, x in v.items() if x is not None} for v in cols[n]]
    keys = [payload_key(n) for n in names]
    envelope = {n: table.column(n).to_pylist() if n in table.column_names else [None] * table.num_rows
                for n in ENVELOPE}  # fmt: skip
    absent = table.column(ABSENT).to_pylist() if ABSENT in table.column_names else [None] * table.num_rows
    values = [cols[n] for n in names]
    for i in range(table.num_rows):
        payload = {k: v[i] for k, v in zip(keys, values, strict=True)}
        gone = absent[i]
        if gone:
            for k in str(gone).split(","):
                payload.pop(k, None)
        yield {"tick": envelope["tick"][i], "type": kind, "source": envelope["source"][i],
               "payload": payload, "seq": envelope["seq"][i]}  # fmt: skip
