"""The `psychoagent` command. Each subsystem contributes its own Typer app or commands here."""

from __future__ import annotations

import sys

import typer

from psychoagent.cli.lazy import Entry, lazy_group

TABLE = {
    "simulate": Entry("psychoagent.cli.econ", "register", "Simulate the economy and write the run files."),
    "metrics": Entry(
        "psychoagent.cli.eval",
        "register",
        "Compute every metric of a run and write metrics.json (n/a groups are listed with the reason).",
    ),
    "experiment": Entry(
        "psychoagent.cli.eval",
        "register",
        "Run variants (x sweep values) over the same seeds; write mean and 95 % CI per metric and a comparison.",
    ),
    "export": Entry(
        "psychoagent.cli.eval",
        "register",
        "Write a run's tables and events in another format: with --csv, the CSV files and events.jsonl.",
    ),
    "report": Entry(
        "psychoagent.cli.report",
        "register",
        "Write DIR/report.html (self-contained: plots embedded, opens offline) and print its path.",
    ),
    "explore": Entry(
        "psychoagent.cli.explore",
        "register",
        "Serve a web app to look inside a run's agents and a memory file (API docs at /docs); print its URL.",
    ),
    "serve": Entry(
        "psychoagent.cli.service",
        "register",
        "Serve the memory over HTTP (OpenAPI at /docs and /openapi.json).",
    ),
    "mcp": Entry(
        "psychoagent.cli.service",
        "register",
        "Serve the memory as MCP tools over stdio (default) or streamable HTTP on loopback.",
    ),
    "appraise": Entry(
        "psychoagent.cli.affect",
        "register",
        "Print the Affect of TEXT as JSON, or with --input one JSON line per input line, in order, ids echoed.",
    ),
    "memory": Entry(
        "psychoagent.cli.memory_manage", "memory_app", "Store events in a memory file and recall them."
    ),
    "llm": Entry(
        "psychoagent.cli.llm",
        "app",
        "LLM backends: check an endpoint, the bundled local model or the offline model.",
    ),
}
"""Every command but `demo`, loaded when it runs; the one-line help is what `psychoagent --help` lists."""

app = typer.Typer(
    name="psychoagent",
    help="Affect-sensitive, conflict-aware memory and evolving personas for LLM agents, with an economic sandbox.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=lazy_group(TABLE),
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode="rich",
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"psychoagent {version('psychoagent')}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="print the version and exit"
    ),
) -> None:
    """Affect-sensitive, conflict-aware memory and evolving personas for LLM agents, with an economic sandbox."""


@app.command()
def demo(
    db: str = typer.Option("", help="memory file to use (default: in memory)"),
    embedder: str = typer.Option("e5", help="embedder spec (e5, hash, ...)"),
) -> None:
    """Observe a few events (English and Chinese), supersede one, and print what recall returns."""
    from rich.console import Console
    from rich.table import Table

    from psychoagent.memory.api import Memory

    console = Console()
    with Memory(db or None, namespace="demo", embedder=embedder) as mem:
        budget = mem.observe(
            "The user set the total equipment budget to 2000 yuan.", timestamp="2024-05-01T09:00:00Z",
            goals=["Keep the total budget under 2000 yuan"],
        )  # fmt: skip
        mem.observe("The user prefers short, concise answers.", timestamp="2024-05-02T10:00:00Z")
        mem.observe("用户说下周要去上海出差。", timestamp="2024-05-03T11:00:00Z")
        mem.observe("The user confirmed buying headphones for 1500 yuan.", timestamp="2024-05-04T12:00:00Z")
        mem.supersede(budget.id, "The user raised the equipment budget from 2000 to 3000 yuan.",
                      timestamp="2024-05-05T08:00:00Z", reason="new instruction")  # fmt: skip
        for query in ("What budget does the user want?", "用户要去哪里出差？"):
            table = Table(title=f"recall: {query}")
            for col in ("score", "content", "valid", "parts"):
                table.add_column(col)
            for hit in mem.recall(query, k=3, now="2024-05-06T00:00:00Z"):
                parts = " ".join(f"{k}={v:.2f}" for k, v in hit.parts.items())
                valid = "current" if hit.unit.is_current else f"superseded {hit.unit.invalid_at:%Y-%m-%d}"
                table.add_row(f"{hit.score:.3f}", hit.unit.content, valid, parts)
            console.print(table)


def main() -> None:
    """Entry point of the console script; `--version` answers before anything else is imported."""
    if sys.argv[1:] in (["--version"], ["-V"]):
        from importlib.metadata import version

        print(f"psychoagent {version('psychoagent')}")
        return
    app()


if __name__ == "__main__":
    main()
