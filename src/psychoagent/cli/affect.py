"""`psychoagent appraise`: label one text, or a JSONL batch, with valence, arousal and conflict."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from psychoagent.cli.errors import check_input


class AppraiseLine(BaseModel):
    """One line of `appraise --input`."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(..., min_length=1)
    id: str | int | None = None
    goals: list[str] = Field(default_factory=list)


def appraise(
    text: Annotated[str | None, typer.Argument(help="event text to appraise")] = None,
    goal: Annotated[
        list[str] | None, typer.Option("--goal", "-g", help="an active goal (repeatable)")
    ] = None,
    input: Annotated[
        Path | None, typer.Option("--input", "-i", help="JSONL: {'text', 'id'?, 'goals'?} per line")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="JSONL output (default stdout)")
    ] = None,
    scheme: Annotated[
        str, typer.Option(help="label scheme: general, customer_service, game_npc, economy")
    ] = "general",
) -> None:
    """Print the Affect of TEXT as JSON, or with --input one JSON line per input line, in order, ids echoed.

    --goal applies to every text; a line's own `goals` are added to it.
    """
    from psychoagent.affect.heuristic import HeuristicAppraiser

    try:
        appraiser = HeuristicAppraiser(scheme=scheme)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    goals = list(goal or [])
    if (text is None) == (input is None):
        typer.echo("error: give either TEXT or --input FILE", err=True)
        raise typer.Exit(2)
    if text is not None:
        if not text.strip():
            typer.echo("error: TEXT must not be empty", err=True)
            raise typer.Exit(2)
        affect = appraiser.appraise(text, goals)
        typer.echo(json.dumps(affect.model_dump(), ensure_ascii=False))
        return
    assert input is not None
    lines: list[AppraiseLine] = []
    check_input(input)
    stream = sys.stdin.buffer if str(input) == "-" else input.open("rb")
    try:
        for number, raw_bytes in enumerate(stream, start=1):
            try:
                raw = raw_bytes.decode("utf-8")
            except UnicodeDecodeError as exc:
                typer.echo(
                    f"error: line {number}: not valid UTF-8 ({exc.reason}); save it as UTF-8", err=True
                )
                raise typer.Exit(2) from exc
            if not raw.strip():
                continue
            try:
                lines.append(AppraiseLine.model_validate(json.loads(raw)))
            except json.JSONDecodeError as exc:
                typer.echo(f"error: line {number}: not valid JSON ({exc.msg})", err=True)
                raise typer.Exit(2) from exc
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"]) or "(line)"
                typer.echo(f"error: line {number}: field {field!r}: {err['msg']}", err=True)
                raise typer.Exit(2) from exc
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    appraiser.prepare([line.text for line in lines])  # one batched embedding for the scores
    out = sys.stdout if output is None else output.open("w", encoding="utf-8")
    try:
        for line in lines:
            affect = appraiser.appraise(line.text, [*goals, *line.goals])
            out.write(json.dumps({"id": line.id, **affect.model_dump()}, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


def register(app: typer.Typer) -> None:
    """Add the `appraise` command to the main `psychoagent` app."""
    app.command("appraise")(appraise)
