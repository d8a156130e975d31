"""`psychoagent memory ...`: ingest JSONL into a memory file and answer JSONL queries."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from psychoagent.cli.errors import check_input, fail
from psychoagent.cli.memory_db import open_memory, resolve_db
from psychoagent.memory.inputs import InvalidArgument, check_time

_M = TypeVar("_M", bound=BaseModel)

app = typer.Typer(help="Store events in a memory file and recall them.", no_args_is_help=True)


class InputError(ValueError):
    """A malformed input line; the message names the line number and the field."""


class IngestLine(BaseModel):
    """One line of `memory ingest` input."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(..., min_length=1)
    id: str | None = None
    namespace: str | None = None
    timestamp: str | float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    goals: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    kind: str = "episodic"

    @field_validator("timestamp")
    @classmethod
    def _timestamp(cls, value: str | float | None) -> str | float | None:
        check_time("timestamp", value)  # a ValueError pydantic reports (1e20 would overflow, not validate)
        return value


class QueryLine(BaseModel):
    """One line of `memory recall` input."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(..., min_length=1)
    id: str | int | None = None
    namespace: str | None = None
    k: int | None = Field(None, ge=1, le=1000)
    where: dict[str, Any] | str | None = None
    context: str | None = None
    now: str | float | None = None


def read_jsonl(path: Path, model: type[_M]) -> Iterator[tuple[int, _M]]:
    """Yield (line number, parsed line); blank lines are skipped; raises InputError naming line and field."""
    stream = sys.stdin.buffer if str(path) == "-" else path.open("rb")
    try:
        for number, raw in enumerate(_decoded(stream), start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InputError(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
            if not isinstance(data, dict):
                raise InputError(f"line {number}: expected a JSON object, got {type(data).__name__}")
            try:
                yield number, model.model_validate(data)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"]) or "(line)"
                raise InputError(f"line {number}: field {field!r}: {err['msg']}") from exc
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _decoded(stream: Iterable[bytes]) -> Iterator[str]:
    """Lines of a byte stream as text; a line that is not UTF-8 raises InputError naming its number."""
    for number, raw in enumerate(stream, start=1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"line {number}: not valid UTF-8 ({exc.reason} at byte {exc.start + 1}); save the file as UTF-8"
            ) from exc


def _check_where(number: int, where: dict[str, Any] | str | None) -> None:
    """InputError naming the line unless the filter parses with values recall can compare ('in' takes a list)."""
    from psychoagent.memory.arguments import check_where

    try:
        check_where(where)
    except InvalidArgument as exc:
        raise InputError(f"line {number}: field 'where': {exc.problem}") from exc


DbOpt = Annotated[str, typer.Option("--db", help="memory file (SQLite) or postgresql:// URL")]
EmbOpt = Annotated[
    str,
    typer.Option(
        "--embedder", help="e5 (default, multilingual), hash, static, sentence-transformers:NAME, openai:M"
    ),
]


@app.command()
def ingest(
    db: Annotated[
        str, typer.Option("--db", help="memory file (SQLite; created if missing) or postgresql:// URL")
    ],
    input: Annotated[Path, typer.Option("--input", "-i", help="JSONL file, '-' for stdin")],
    namespace: Annotated[str, typer.Option(help="namespace for lines that name none")] = "default",
    embedder: EmbOpt = "e5",
    batch: Annotated[int, typer.Option(min=1, help="units per transaction")] = 1000,
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="skip malformed lines (reported) instead of writing nothing"),
    ] = False,
) -> None:
    """Store one memory per JSONL line.

    Each line is an object with `text` (required) and optional `id` (kept as the unit id and returned by recall),
    `namespace`, `timestamp` (ISO 8601 or epoch seconds), `metadata` (object), `goals` (list of strings),
    `sources` (ids it derives from), `kind`.

    The whole input is validated before anything is written: a malformed line stops the command with its line
    number and field, and nothing from this input is stored. With --skip-invalid the good lines are stored and
    each bad one is reported. Writes go in transactions of --batch lines; an interrupted run keeps whole batches.
    """
    from rich.console import Console
    from rich.progress import Progress

    check_input(input)
    target = resolve_db(db, must_exist=False)
    lines: list[tuple[int, IngestLine]] = []
    bad: list[str] = []
    try:
        for item in read_jsonl(input, IngestLine):
            lines.append(item)
    except InputError as exc:
        if not skip_invalid:
            typer.echo(f"error: {exc}; nothing was written", err=True)
            raise typer.Exit(2) from exc
        bad.append(str(exc))
    if skip_invalid and bad:
        # Re-read line by line so every bad line is reported, not only the first.
        lines, bad = _tolerant_read(input)
    lines = _keep_valid(lines, namespace, bad, skip_invalid)
    mem = open_memory(target, namespace, embedder)
    try:
        lines = _keep_new_ids(mem, lines, namespace, bad, skip_invalid)
    except typer.Exit:
        mem.close()
        raise
    by_ns: dict[str, list[IngestLine]] = {}
    for _, line in lines:
        by_ns.setdefault(line.namespace or namespace, []).append(line)
    written = 0
    try:
        with Progress(console=Console(stderr=True), transient=True, disable=len(lines) < 200) as progress:
            task = progress.add_task("ingesting", total=len(lines))
            for ns, items in by_ns.items():
                view = mem.for_namespace(ns)
                for start in range(0, len(items), batch):
                    chunk = items[start : start + batch]
                    view.observe_many(
                        {"text": x.text, "id": x.id, "timestamp": x.timestamp, "metadata": x.metadata,
                         "goals": x.goals, "sources": x.sources, "kind": x.kind}
                        for x in chunk
                    )  # fmt: skip
                    written += len(chunk)
                    progress.advance(task, len(chunk))
    except ValueError as exc:
        typer.echo(f"error: {exc}; {written} units were written before it", err=True)
        raise typer.Exit(2) from exc
    finally:
        mem.close()
    for message in bad:
        typer.echo(f"skipped: {message}", err=True)
    typer.echo(json.dumps({"written": written, "skipped": len(bad), "namespaces": sorted(by_ns)}))


def _keep_valid(
    lines: list[tuple[int, IngestLine]], namespace: str, bad: list[str], skip: bool
) -> list[tuple[int, IngestLine]]:
    """Lines that `observe_many` accepts and whose id no earlier line has; the others are reported in `bad`
    (with `skip`) or stop the command before anything is written."""
    from psychoagent.memory.arguments import check_namespace, check_observe

    good: list[tuple[int, IngestLine]] = []
    first: dict[tuple[str, str], int] = {}
    for number, line in lines:
        ns = line.namespace or namespace
        try:
            check_namespace(ns)
            check_observe(None, line.text, line.goals, line.timestamp, line.sources, line.metadata, line.id,
                          line.kind)  # fmt: skip
            if line.id is not None and (ns, line.id) in first:
                raise InvalidArgument("id", f"{line.id!r} repeats the id of line {first[(ns, line.id)]}")
        except InvalidArgument as exc:
            _refuse(f"line {number}: field {exc.argument!r}: {exc.problem}", bad, skip)
            continue
        if line.id is not None:
            first[(ns, line.id)] = number
        good.append((number, line))
    return good


def _keep_new_ids(
    mem: Any, lines: list[tuple[int, IngestLine]], namespace: str, bad: list[str], skip: bool
) -> list[tuple[int, IngestLine]]:
    """Lines whose id is not stored yet in their namespace (checked before the first write)."""
    ids: dict[str, list[str]] = {}
    for _, line in lines:
        if line.id is not None:
            ids.setdefault(line.namespace or namespace, []).append(line.id)
    stored: set[tuple[str, str]] = set()
    for ns, wanted in ids.items():
        view = mem.for_namespace(ns)
        for start in range(0, len(wanted), 500):
            stored.update((ns, u.id) for u in view.get_many(wanted[start : start + 500]))
    good = []
    for number, line in lines:
        ns = line.namespace or namespace
        if line.id is not None and (ns, line.id) in stored:
            _refuse(
                f"line {number}: field 'id': a unit with id {line.id!r} already exists in {ns!r}", bad, skip
            )
            continue
        good.append((number, line))
    return good


def _refuse(message: str, bad: list[str], skip: bool) -> None:
    """Report a bad line: with --skip-invalid it is listed and skipped, otherwise nothing is written."""
    if not skip:
        fail(f"{message}; nothing was written")
    bad.append(message)


def _tolerant_read(path: Path) -> tuple[list[tuple[int, IngestLine]], list[str]]:
    good: list[tuple[int, IngestLine]] = []
    bad: list[str] = []
    with path.open("rb") as stream:
        for number, raw_bytes in enumerate(stream, start=1):
            try:
                raw = raw_bytes.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad.append(f"line {number}: not valid UTF-8 ({exc.reason})")
                continue
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
                if not isinstance(data, dict):
                    raise InputError(f"line {number}: expected a JSON object")
                good.append((number, IngestLine.model_validate(data)))
            except json.JSONDecodeError as exc:
                bad.append(f"line {number}: not valid JSON ({exc.msg})")
            except ValidationError as exc:
                err = exc.errors()[0]
                bad.append(f"line {number}: field {'.'.join(str(p) for p in err['loc'])!r}: {err['msg']}")
            except InputError as exc:
                bad.append(str(exc))
    return good, bad


@app.command()
def recall(
    db: Annotated[
        str,
        typer.Option("--db", help="memory file written by `memory ingest` (must exist) or postgresql:// URL"),
    ],
    input: Annotated[Path, typer.Option("--input", "-i", help="JSONL queries, '-' for stdin")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="JSONL results (default stdout)")
    ] = None,
    k: Annotated[int, typer.Option(min=1, max=1000, help="hits per query unless the line sets k")] = 5,
    namespace: Annotated[str, typer.Option(help="namespace for lines that name none")] = "default",
    embedder: EmbOpt = "e5",
    recipe: Annotated[
        str,
        typer.Option(
            help="recall recipe (memory.config.recipes): default, documents, exact, dense, keyword, stateless"
        ),
    ] = "default",
) -> None:
    """Answer one query per JSONL line, in input order.

    Query lines: `query` (required), optional `id`, `namespace`, `k`, `where` (filter object or string, e.g.
    "conflict_intensity > 2 AND valence < 0"), `context`, `now` (ISO 8601: the time recency is measured from).
    Output lines: {"id": <query id>, "hits": [{"id", "score", "parts", "text", "metadata"}, ...]}.
    An unknown namespace gives an empty hit list. A malformed line stops with its line number and field, and
    no output is written.
    """
    from psychoagent.memory.api import Memory

    check_input(input)
    target = resolve_db(db, must_exist=True)
    if output is not None and output.is_dir():
        fail(f"--output {output} is a folder; give a file")
    try:
        queries = list(read_jsonl(input, QueryLine))
        for number, line in queries:  # every filter is checked before any query runs (recall updates access)
            _check_where(number, line.where)
    except InputError as exc:
        fail(f"--input {input}: {exc}")
    mem = open_memory(target, namespace, embedder, recipe)
    views: dict[str, Memory] = {namespace: mem}
    records: list[str] = []
    try:
        for number, line in queries:
            ns = line.namespace or namespace
            view = views.setdefault(ns, mem.for_namespace(ns))
            try:
                hits = view.recall(
                    line.query, k=line.k or k, where=line.where, context=line.context, now=line.now
                )
            except (ValueError, TypeError) as exc:
                fail(
                    f"--input {input}: line {number}: field 'where': {exc} (a comparison takes a number, time or "
                    "text; 'in' takes a list)"
                )
            record = {
                "id": line.id,
                "hits": [
                    {
                        "id": h.unit.id,
                        "score": round(h.score, 6),
                        "parts": {p: round(v, 6) for p, v in h.parts.items()},
                        "text": h.unit.content,
                        "metadata": h.unit.metadata,
                    }
                    for h in hits
                ],
            }
            records.append(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        mem.close()
    if output is None:
        sys.stdout.write("".join(records))
    else:
        output.write_text("".join(records), encoding="utf-8")
