"""`psychoagent metrics`, `experiment` and `export`: score a run directory; run variants over seeds; write a run's
files as CSV."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from psychoagent.cli import common
from psychoagent.cli.errors import fail
from psychoagent.eval.variants import VARIANTS


def metrics_command(
    run: Path = typer.Argument(..., help="run directory (config.json, macro.parquet, ...)"),
) -> None:
    """Compute every metric of a run and write metrics.json (n/a groups are listed with the reason)."""
    from rich.console import Console
    from rich.table import Table

    from psychoagent.eval.metrics import write_metrics
    from psychoagent.eval.tables import fmt

    try:
        result = write_metrics(run)
    except (FileNotFoundError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from exc
    table = Table(title=f"metrics of {run}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in result["metrics"].items():
        table.add_row(key, fmt(value) if value is not None else "n/a")
    console = Console()
    console.print(table)
    for group, why in result["not_available"].items():
        console.print(f"[dim]{group}: n/a ({why})[/dim]")
    console.print(f"-> {run / 'metrics.json'}")


def experiment_command(
    out: Path = typer.Option(..., "--out", help="experiment directory"),
    seeds: int = typer.Option(
        5, "--seeds", min=1, help="number of seeds; every variant runs on the same ones"
    ),
    seed_start: int = typer.Option(1, "--seed-start", min=0, help="first seed (seeds are consecutive)"),
    scenario: str = common.scenario_option(),
    variants: str = typer.Option(
        "full,no-memory,static-persona,no-affect,composite",
        "--variants",
        help=f"comma-separated variant names: {', '.join(VARIANTS)}",
    ),
    agents: int = common.agents_option("households per run"),
    ticks: int = common.ticks_option("months per run (0: the scenario's, else 240)"),
    sweep: list[str] = typer.Option(
        [], "--sweep", help="param=v1,v2 (an economy setting; repeat for a grid)"
    ),
    jobs: int = typer.Option(
        2,
        "--jobs",
        min=1,
        help="runs in parallel (process pool; with --backend ray, the local cluster's CPUs)",
    ),
    backend: str = common.backend_option("local (process pool) or ray (one Ray task per run)"),
    address: str = common.address_option(),
    llm: str = common.llm_option("URL of an OpenAI-compatible server or 'local' (LLM variants)"),
    llm_timeout: float | None = common.llm_timeout_option(),
    report: bool = typer.Option(True, "--report/--no-report", help="write report.html into the directory"),
    resume: bool = typer.Option(False, "--resume", help="reuse finished identical runs already in --out"),
    collect: bool = typer.Option(
        False, "--collect", help="run nothing: rebuild the tables from the runs finished in --out"
    ),
    rescore: bool = typer.Option(
        False, "--rescore", help="with --collect: recompute each run's metrics.json"
    ),
) -> None:
    """Run variants (x sweep values) over the same seeds; write mean and 95 % CI per metric and a comparison."""
    from pydantic import ValidationError
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from psychoagent.cli.errors import validation_message
    from psychoagent.econ.run import check_llm, uses_llm
    from psychoagent.eval.experiment import conditions, run_experiment
    from psychoagent.eval.variants import resolve

    if collect:
        from psychoagent.eval.experiment import collect_experiment

        try:
            runs = collect_experiment(out, rescore=rescore)
        except (FileNotFoundError, ValueError) as exc:
            raise typer.BadParameter(str(exc)) from exc
        typer.echo(f"{len(runs)} finished runs -> {out / 'comparison.md'}")
        if report:
            from psychoagent.report.html import write_report

            typer.echo(f"report: {write_report(out)}")
        return
    names = [v.strip() for v in variants.split(",") if v.strip()]
    common.set_llm_timeout(llm_timeout)
    scen = common.scenario_arg(scenario)
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file; give a folder for the experiment")
    try:
        from psychoagent.econ.distributed.cluster import check_backend

        check_backend(backend, address or None)
        if not names:
            raise ValueError(f"--variants needs at least one name: {', '.join(VARIANTS)}")
        conds = conditions(names, sweep)
        needs_model = any(uses_llm(resolve(c.variant).policy) for c in conds)
        check_llm(llm or None, needs_model=needs_model)
        for c in conds:  # the swept values must make a valid economy and agent before any run starts
            resolve(c.variant, c.sweep).scenario(scen)
    except ValidationError as exc:
        fail(validation_message(exc, "--sweep"))
    except ValueError as exc:
        fail(str(exc))
    if needs_model:
        from psychoagent.llm import LLMError, get_model

        try:  # an endpoint that does not answer stops the experiment before any run starts
            get_model(llm or "offline").probe()
        except LLMError as exc:
            typer.echo(f"error: the model did not answer, nothing was run: {exc}", err=True)
            raise typer.Exit(1) from exc
    seed_list = list(range(seed_start, seed_start + seeds))
    console = Console(stderr=True)
    command = shlex.join(["psychoagent", *sys.argv[1:]])
    columns = (TextColumn("[bold]experiment"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))  # fmt: skip
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("", total=len(conds) * len(seed_list))
        try:
            run_experiment(
                out, variants=names, seeds=seed_list, scenario=scenario, agents=agents, ticks=ticks or None,
                sweeps=sweep, jobs=jobs, llm=llm or None, command=command, resume=resume, backend=backend,
                address=address or None,
                progress=lambda label, s: bar.update(task, advance=1, description=f"{label} seed {s}"),
            )  # fmt: skip
        except RuntimeError as exc:  # every run failed: experiment.json lists why
            typer.echo(f"error: {exc} (see {out / 'experiment.json'})", err=True)
            raise typer.Exit(1) from exc
    from psychoagent.eval.experiment import load_experiment

    for f in load_experiment(out)[0].get("failures", []):
        console.print(f"[red]failed[/red] {f['condition']} seed {f['seed']}: {f['error']}", soft_wrap=True)
    console.print(
        f"-> {out / 'comparison.md'}, {out / 'comparison.csv'}, {out / 'summary.csv'}", soft_wrap=True
    )
    if report:
        from psychoagent.report.html import write_report

        console.print(f"report: {write_report(out)}", soft_wrap=True)


def export_command(
    run: Path = typer.Argument(..., help="run directory (config.json, macro.parquet, ...)"),
    csv: bool = typer.Option(False, "--csv", help="write macro.csv, agents.csv, assets.csv and events.jsonl"),
    out: Path | None = typer.Option(None, "--out", help="folder for the files (default: the run directory)"),
) -> None:
    """Write a run's tables and events in another format: with --csv, the CSV files and events.jsonl."""
    from psychoagent.eval.export import export_csv

    if not csv:
        fail("choose a format: --csv")
    try:
        written = export_csv(run, out)
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    for path in written:
        typer.echo(str(path))


def register(app: typer.Typer) -> None:
    """Add `metrics`, `experiment` and `export` to the main `psychoagent` app."""
    app.command("metrics")(metrics_command)
    app.command("experiment")(experiment_command)
    app.command("export")(export_command)
