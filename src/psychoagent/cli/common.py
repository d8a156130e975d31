"""What the economy's commands share (`simulate`, `experiment`): the scenario option and its parser, the --llm
model and its per-call timeout, where runs go (--backend, --address) and a run's size (--agents, --ticks)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from psychoagent.cli.errors import fail, validation_message
from psychoagent.econ.run import LIMITS
from psychoagent.econ.scenario import builtin_scenarios
from psychoagent.llm.config import TIMEOUT_ENV

SCENARIO_HELP = f"built-in scenario ({', '.join(builtin_scenarios())}) or a .toml/.yaml file"
ADDRESS_HELP = "with --backend ray: the cluster's address (default: start a local cluster)"


def scenario_option() -> Any:
    """--scenario: a built-in name or a scenario file (baseline by default)."""
    return typer.Option("baseline", "--scenario", help=SCENARIO_HELP)


def agents_option(help: str) -> Any:
    """--agents: households, within the run limits."""
    return typer.Option(100, "--agents", min=1, max=LIMITS.max_agents, help=help)


def ticks_option(help: str) -> Any:
    """--ticks: months (0: the scenario's suggestion, else 240)."""
    return typer.Option(0, "--ticks", "--months", min=0, help=help)


def llm_option(help: str) -> Any:
    """--llm: the model LLM policies ask (a URL, 'local', 'local:PATH', 'env' or 'offline')."""
    return typer.Option("", "--llm", help=help)


def llm_timeout_option() -> Any:
    """--llm-timeout: seconds per model call (also read from the environment)."""
    return typer.Option(
        None,
        "--llm-timeout",
        envvar=TIMEOUT_ENV,
        help="seconds per model call before it is retried (default 60)",
    )


def backend_option(help: str) -> Any:
    """--backend: local or ray."""
    return typer.Option("local", "--backend", help=help)


def address_option() -> Any:
    """--address: a Ray cluster to join (with --backend ray)."""
    return typer.Option("", "--address", help=ADDRESS_HELP)


def scenario_arg(value: str) -> Any:
    """The scenario named by --scenario; exit 2 with the file, the field and what is allowed when it is bad."""
    from pydantic import ValidationError

    from psychoagent.econ.scenario import Scenario, load_scenario

    path = Path(value)
    if path.suffix in (".toml", ".yaml", ".yml") and not path.is_file():
        fail(f"--scenario {value}: no such file (or use a built-in name: {', '.join(builtin_scenarios())})")
    try:
        return load_scenario(value)
    except ValueError as exc:
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            message = validation_message(cause, f"--scenario {value}")
            if any(e["type"] == "extra_forbidden" and len(e["loc"]) == 1 for e in cause.errors()):
                message += f"; allowed fields: {', '.join(Scenario.model_fields)}"
            fail(message)
        fail(f"--scenario {exc}")


def set_llm_timeout(timeout: float | None) -> None:
    """Make --llm-timeout the per-call timeout of every model client of this process and its workers."""
    if timeout is not None:
        if timeout <= 0:
            fail(f"--llm-timeout must be more than 0 seconds, got {timeout}")
        os.environ[TIMEOUT_ENV] = str(timeout)
