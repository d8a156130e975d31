"""`psychoagent memory list | get | history | export | import | forget | brief | conflicts`.

Each command opens the file through a `MemoryHub`, so arguments are validated as the REST service validates them;
bad input stops with one message naming the argument and exit code 2, and writes nothing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel, ValidationError

from psychoagent.cli import memory as _memory
from psychoagent.types import ConflictStatus

if TYPE_CHECKING:
    from psychoagent.service.hub import MemoryHub

DbOpt = Annotated[str, typer.Option("--db", help="memory file (SQLite) or postgresql:// URL")]
NsOpt = Annotated[str, typer.Option("--namespace", "-n", help="namespace")]
EmbOpt = Annotated[str, typer.Option("--embedder", help="e5 (default), hash, static, ...")]
IdArg = Annotated[str, typer.Argument(help="unit id")]
RecipeOpt = Annotated[
    str, typer.Option("--recipe", help="recall recipe: default, documents, exact, dense, keyword, stateless")
]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _print(item: BaseModel | dict[str, Any]) -> None:
    data = item.model_dump(mode="json") if isinstance(item, BaseModel) else item
    typer.echo(json.dumps(data, ensure_ascii=False))


@contextmanager
def _hub(db: str, embedder: str, must_exist: bool = True, recipe: str = "default") -> Iterator[MemoryHub]:
    """Open the file or database, translating validation and lookup failures into exit code 2 with the message."""
    from psychoagent.cli.memory_db import open_memory, resolve_db
    from psychoagent.service.hub import MemoryHub, ServiceError

    target = resolve_db(db, must_exist=False)
    if must_exist and isinstance(target, Path) and not target.exists():
        raise _fail(f"--db: memory file {db} does not exist")
    hub = MemoryHub(open_memory(target, "default", embedder, recipe))
    try:
        yield hub
    except ServiceError as exc:
        raise _fail(exc.message) from exc
    finally:
        hub.close()


def _validated(model: type[BaseModel], names: dict[str, str], **values: Any) -> Any:
    """Build a request model; a bad value stops with the CLI option that carried it."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else ""
        raise _fail(f"{names.get(field, field)}: {err['msg']}") from exc


def list_units(
    db: DbOpt,
    namespace: NsOpt = "default",
    offset: Annotated[int, typer.Option(min=0)] = 0,
    limit: Annotated[int, typer.Option(min=1, max=100_000)] = 100,
    embedder: EmbOpt = "e5",
) -> None:
    """Print units (one JSON per line) in insertion order."""
    with _hub(db, embedder) as hub:
        page = hub.page(namespace, offset, limit)
    for unit in page.units:
        _print(unit)


def get(db: DbOpt, id: IdArg, namespace: NsOpt = "default", embedder: EmbOpt = "e5") -> None:
    """Print one unit as JSON."""
    with _hub(db, embedder) as hub:
        _print(hub.get(namespace, id))


def history(db: DbOpt, id: IdArg, namespace: NsOpt = "default", embedder: EmbOpt = "e5") -> None:
    """Print the unit's versions (supersession chain), their edges and conflicts as JSON."""
    with _hub(db, embedder) as hub:
        _print(hub.history(namespace, id))


def forget(
    db: DbOpt,
    id: IdArg,
    namespace: NsOpt = "default",
    reason: Annotated[str, typer.Option(help="why (kept on the tombstone)")] = "",
    embedder: EmbOpt = "e5",
) -> None:
    """Erase a unit's content (privacy); a tombstone keeps its place in the graph. Prints the tombstone."""
    with _hub(db, embedder) as hub:
        _print(hub.forget(namespace, id, reason))


def brief(
    db: DbOpt,
    query: Annotated[str, typer.Argument(help="the decision to brief for")],
    namespace: NsOpt = "default",
    k: Annotated[int, typer.Option(help="memories to recall")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="the whole Briefing as JSON")] = False,
    embedder: EmbOpt = "e5",
    recipe: RecipeOpt = "default",
) -> None:
    """Print a conflict-aware briefing (text, or JSON with --json)."""
    from psychoagent.service.models import BriefRequest

    req = _validated(BriefRequest, {"query": "QUERY", "k": "--k"}, query=query, k=k)
    with _hub(db, embedder, recipe=recipe) as hub:
        briefing = hub.brief(namespace, req)
    if as_json:
        _print(briefing)
    else:
        typer.echo(briefing.text)


def conflicts(
    db: DbOpt,
    namespace: NsOpt = "default",
    status: Annotated[ConflictStatus | None, typer.Option(help="only records with this status")] = None,
    embedder: EmbOpt = "e5",
) -> None:
    """Print conflict records (one JSON per line), oldest first."""
    with _hub(db, embedder) as hub:
        records = hub.conflicts(namespace, status)
    for record in records:
        _print(record)


def export(
    db: DbOpt,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="JSONL file (default stdout)")] = None,
    namespace: Annotated[
        list[str] | None, typer.Option("--namespace", "-n", help="only these namespaces (repeatable)")
    ] = None,
    embedder: EmbOpt = "e5",
) -> None:
    """Write units, edges and conflict records as JSONL that `memory import` reads back field for field."""
    from psychoagent.memory.portable import export_lines

    with _hub(db, embedder) as hub, hub.lock:
        lines = list(export_lines(hub.memory, namespace))
    out = sys.stdout if output is None else output.open("w", encoding="utf-8")
    try:
        for line in lines:
            out.write(line + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    typer.echo(json.dumps({"exported": len(lines)}), err=True)


def import_(
    db: DbOpt,
    input: Annotated[Path, typer.Option("--input", "-i", help="JSONL from `memory export`, '-' for stdin")],
    embedder: EmbOpt = "e5",
) -> None:
    """Read an export into the file (created if missing): all lines or, on any error, nothing."""
    from psychoagent.memory.portable import ExportFormatError, import_lines

    try:
        text = sys.stdin.read() if str(input) == "-" else input.read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(f"--input: cannot read {input}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise _fail(f"--input: {input} is not UTF-8 text") from exc
    with _hub(db, embedder, must_exist=False) as hub:
        try:
            with hub.lock:
                counts = import_lines(hub.memory, text.splitlines())
        except ExportFormatError as exc:
            raise _fail(f"--input: {exc}; nothing was written") from exc
        except ValueError as exc:
            raise _fail(f"--input: {exc}; nothing was written") from exc
    typer.echo(json.dumps(counts))


def register(app: typer.Typer) -> None:
    """Add the management commands to `psychoagent memory`."""
    app.command("list")(list_units)
    app.command("get")(get)
    app.command("history")(history)
    app.command("forget")(forget)
    app.command("brief")(brief)
    app.command("conflicts")(conflicts)
    app.command("export")(export)
    app.command("import")(import_)


memory_app = _memory.app
"""`psychoagent memory`: ingest and recall (cli/memory.py) with the management commands above."""
register(memory_app)
