"""`psychoagent simulate`: run the economy from the command line with a progress bar."""

from __future__ import annotations

from pathlib import Path

import typer

from psychoagent.econ.policies import policy_names


def simulate_command(
    out: Path = typer.Option(
        ..., "--out", help="run folder for config.json, macro.csv, agents.csv, events.jsonl"
    ),
    agents: int = typer.Option(100, "--agents", min=1, help="number of households"),
    ticks: int = typer.Option(0, "--ticks", min=0, help="months to simulate (0: the scenario's, else 240)"),
    seed: int = typer.Option(42, "--seed", help="seed of the model's random generator"),
    policy: str = typer.Option("persona", "--policy", help=f"decision policy: {', '.join(policy_names())}"),
    scenario: str = typer.Option(
        "baseline", "--scenario", help="built-in scenario name or a .toml/.yaml file"
    ),
    llm: str = typer.Option(
        "", "--llm", help="URL of an OpenAI-compatible server or 'local' (stored for LLM policies)"
    ),
    report: bool = typer.Option(
        False, "--report", help="then write metrics.json and report.html; print its path"
    ),
) -> None:
    """Simulate the economy and write the run files."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from psychoagent.econ.run import check_llm, simulate
    from psychoagent.econ.scenario import load_scenario

    try:
        check_llm(llm or None)
        scen = load_scenario(scenario)
        from psychoagent.econ.policies import make_policy

        make_policy(policy)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    n_ticks = ticks or scen.ticks or 240
    console = Console(stderr=True)
    columns = (TextColumn("[bold]simulate"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("months", total=n_ticks)
        model = simulate(out, agents=agents, ticks=n_ticks, seed=seed, policy=policy, scenario=scen,
                         llm=llm or None, progress=lambda _t: bar.advance(task))  # fmt: skip
    m = model.metrics
    console.print(
        f"{n_ticks} months, {agents} households, policy {model.policy.name}, scenario {scen.name}: "
        f"unemployment {m['unemployment']:.1%}, inflation {m['inflation']:.1%}, rate {m['interest_rate']:.2%}, "
        f"{model.fallbacks} fallbacks -> {out}"
    )
    if report:
        from psychoagent.report.html import write_report

        typer.echo(f"report: {write_report(out).resolve()}")


def register(app: typer.Typer) -> None:
    """Add the `simulate` command to the main `psychoagent` app."""
    app.command("simulate")(simulate_command)
