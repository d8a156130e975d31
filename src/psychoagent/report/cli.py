"""`psychoagent report DIR`: write report.html for a run or an experiment directory and print its path."""

from __future__ import annotations

from pathlib import Path

import typer


def report_command(
    folder: Path = typer.Argument(..., help="run directory or experiment directory"),
) -> None:
    """Write DIR/report.html (self-contained: plots embedded, opens offline) and print its path."""
    from psychoagent.report.html import write_report

    try:
        out = write_report(folder)
    except (FileNotFoundError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(str(out))


def register(app: typer.Typer) -> None:
    """Add the `report` command to the main `psychoagent` app."""
    app.command("report")(report_command)
