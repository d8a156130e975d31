"""`psychoagent simulate`: run the economy from the command line with a progress bar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from psychoagent.cli import common
from psychoagent.cli.errors import fail
from psychoagent.econ.policies import policy_names

RUN_FAILED = 1
"""Exit code of a run that went through but cannot be trusted (too many model fallbacks) or could not start."""


def simulate_command(
    out: Path = typer.Option(
        ...,
        "--out",
        help="run folder for config.json, macro/agents/assets.parquet and events/ (new or empty)",
    ),
    agents: int = common.agents_option("number of households"),
    ticks: int = common.ticks_option("months to simulate (0: the scenario's, else 240)"),
    seed: int = typer.Option(42, "--seed", min=0, help="seed of the model's random generator (0 or more)"),
    policy: str = typer.Option(
        "cognitive",
        "--policy",
        help=(
            "decision policy (default cognitive: households that remember, recall, decide through guardrails, trade "
            f"and evolve their personas; persona and composite are the rule baselines): {', '.join(policy_names())}"
        ),
    ),
    scenario: str = common.scenario_option(),
    llm: str = common.llm_option("URL of an OpenAI-compatible server or 'local' (stored for LLM policies)"),
    firms: str = typer.Option(
        "",
        "--firms",
        help="how firms decide: rule (demand-gap rule), cognitive (persona, memory, guardrails, each quarter) "
        "or llm (the same loop, decisions from the --llm model); default: the scenario's, else rule",
    ),
    llm_timeout: float | None = common.llm_timeout_option(),
    max_fallback_share: float = typer.Option(
        0.2,
        "--max-fallback-share",
        min=0.0,
        max=1.0,
        help="exit 1 when more than this share of model calls fell back to a stand-in answer",
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="replace the run files in a --out folder that is not empty"
    ),
    report: bool = typer.Option(
        False, "--report", help="then write metrics.json and report.html; print its path"
    ),
    backend: str = common.backend_option(
        "where the shards of cognitive households run: local (this process) or ray"
    ),
    shards: int = typer.Option(
        1,
        "--shards",
        min=1,
        help="split the cognitive households into N shards (same run files as one process; docs/scaling.md)",
    ),
    address: str = common.address_option(),
    trace_decisions: int | None = typer.Option(
        None,
        "--trace-decisions",
        min=0,
        help="households whose briefing and guarded decision are written as mind.decision events (for "
        "`psychoagent explore`; above this many an even sample; 0: none; default 1000)",
    ),
) -> None:
    """Simulate the economy and write the run files."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from psychoagent.econ.run import check_cohorts, check_llm, check_out, check_size, simulate, uses_llm
    from psychoagent.llm.base import LLMError

    common.set_llm_timeout(llm_timeout)
    from psychoagent.econ.firms.config import FIRM_MODES

    if firms and firms not in FIRM_MODES:
        fail(f"--firms must be one of {', '.join(FIRM_MODES)}, got {firms!r}")
    scen = common.scenario_arg(scenario)
    if trace_decisions is not None:
        scen = scen.model_copy(update={"cognitive": {**scen.cognitive, "trace_decisions": trace_decisions}})
    n_ticks = ticks or scen.ticks or 240
    try:
        check_size(agents, n_ticks, seed)
        check_out(out, overwrite)
        check_llm(llm or None, needs_model=uses_llm(policy) or firms == "llm")
        check_sharding(policy, shards, backend, address or None)
        if firms in ("cognitive", "llm") and (shards > 1 or backend != "local"):
            raise ValueError(f"--firms {firms} runs in one process: leave out --shards and --backend")
        check_cohorts(scen, shards, backend)
    except ValueError as exc:
        fail(str(exc))
    console = Console(stderr=True)
    columns = (TextColumn("[bold]simulate"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    try:
        with Progress(*columns, console=console, transient=False) as bar:
            task = bar.add_task("months", total=n_ticks)
            model = simulate(out, agents=agents, ticks=n_ticks, seed=seed, policy=policy, scenario=scen,
                             llm=llm or None, progress=lambda _t: bar.advance(task), shards=shards,
                             backend=backend, address=address or None, firms=firms or None)  # fmt: skip
    except LLMError as exc:
        typer.echo(f"error: the model did not answer, nothing was simulated: {exc}", err=True)
        raise typer.Exit(RUN_FAILED) from exc
    m = model.metrics
    where = (
        f", {shards} shard{'s' if shards > 1 else ''} ({backend})" if shards > 1 or backend != "local" else ""
    )
    console.print(
        f"{n_ticks} months, {agents} households, policy {model.policy.name}{where}, scenario {scen.name}; "
        f"in month {n_ticks}: unemployment {m['unemployment']:.1%}, inflation over 12 months {m['inflation']:.1%}, "
        f"policy rate {m['interest_rate']:.2%}; {model.fallbacks} invalid intents replaced -> {out}",
        soft_wrap=True,
    )
    llm_share = _llm_line(model, console)
    if llm_share is not None and llm_share > max_fallback_share:
        typer.echo(
            f"error: {llm_share:.0%} of model calls fell back to a stand-in answer (limit --max-fallback-share "
            f"{max_fallback_share:.0%}); the run files are written, but see {out / 'run.log'} for the cause",
            err=True,
        )
        raise typer.Exit(RUN_FAILED)
    if report:
        from psychoagent.report.html import write_report

        typer.echo(f"report: {write_report(out).resolve()}")


def check_sharding(policy: str, shards: int, backend: str, address: str | None) -> None:
    """ValueError naming the option unless the backend is known (and installed), --address goes with Ray, and
    a sharded run is asked of the cognitive policy or one of its variants."""
    from psychoagent.econ.distributed.cluster import check_backend

    check_backend(backend, address)
    if shards > 1 or backend == "ray":
        from psychoagent.econ.cognitive.policy import CognitivePolicy
        from psychoagent.econ.policies import make_policy

        if type(make_policy(policy)) is not CognitivePolicy:
            raise ValueError(
                f"--shards/--backend ray run the cognitive policy and its variants, not --policy {policy}"
            )


def _llm_line(model: Any, console: Any) -> float | None:
    """Print the model calls of the run by purpose (calls, fallbacks, repairs, retries); their fallback share."""
    client = getattr(model.policy, "client", None)
    if client is None or not hasattr(client, "usage"):
        return None
    from psychoagent.llm.accounting import usage_summary

    s = usage_summary(client.usage.to_dict())
    parts = ", ".join(
        f"{p} {c['calls']} calls / {c['fallbacks']} fallbacks / {c['repaired']} repaired / {c['retried']} retried"
        for p, c in s["purposes"].items()
    )
    console.print(
        f"model {client.name}: {s['calls']} calls, {s['fallbacks']} fell back ({s['fallback_share']:.0%}), "
        f"{s['transport_retries']} transport retries ({parts or 'no calls'})",
        soft_wrap=True,
    )
    return float(s["fallback_share"]) if s["calls"] else None


def register(app: typer.Typer) -> None:
    """Add the `simulate` command to the main `psychoagent` app."""
    app.command("simulate")(simulate_command)
