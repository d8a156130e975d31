"""`psychoagent report DIR`: write report.html for a run or an experiment directory and print its path."""

from __future__ import annotations

from pathlib import Path

import typer

from psychoagent.cli.errors import fail


def report_command(
    folder: Path = typer.Argument(..., help="run directory or experiment directory"),
) -> None:
    """Write DIR/report.html (self-contained: plots embedded, opens offline) and print its path."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from psychoagent.eval.experiment import is_experiment
    from psychoagent.report.html import write_report

    if not (folder / "config.json").is_file() and not is_experiment(folder):
        fail(
            f"{folder} is not a run directory (no config.json) nor an experiment directory (no experiment.json)"
        )
    columns = (
        TextColumn("[bold]report"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=None)

        def step(section: str) -> None:
            bar.update(task, advance=1, description=section)

        try:
            out = write_report(folder, progress=step)
        except (FileNotFoundError, ValueError) as exc:
            fail(str(exc))
    typer.echo(str(out))


def register(app: typer.Typer) -> None:
    """Add the `report` command to the main `psychoagent` app."""
    app.command("report")(report_command)
