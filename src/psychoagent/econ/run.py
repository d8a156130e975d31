"""One simulation run on disk: config.json, events.jsonl, macro.csv, agents.csv, assets.csv in an output folder."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from psychoagent.econ.collect import AGENT_COLUMNS, write_tables
from psychoagent.econ.markets import ASSET_COLUMNS
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.policies import make_policy
from psychoagent.econ.scenario import Scenario, load_scenario

RUN_FILES = ("config.json", "events.jsonl", "macro.csv", "agents.csv", "assets.csv", "run.log")
_URL = re.compile(r"^https?://[^\s/]+(/\S*)?$")


@contextmanager
def run_log(folder: Path) -> Iterator[None]:
    """Send the library's log records (fallbacks, affect-drift warnings, ...) to `folder/run.log` instead of the
    console while a run lasts: one line per household per warning would drown the progress bar."""
    logger = logging.getLogger("psychoagent")
    handler = logging.FileHandler(folder / "run.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        handler.close()
        logger.setLevel(level)
        logger.propagate = propagate


def check_llm(llm: str | None) -> str | None:
    """Validate the --llm value: None, 'offline', 'local', 'local:PATH', 'env' or an http(s) URL of an
    OpenAI-compatible server."""
    if llm is None or llm in ("offline", "local", "env") or llm.startswith("local:") or _URL.match(llm):
        return llm
    raise ValueError(
        f"--llm must be 'offline', 'local', 'local:PATH', 'env' or an http(s):// URL, got {llm!r}"
    )


def simulate(
    out: str | Path,
    *,
    agents: int = 100,
    ticks: int | None = None,
    seed: int = 42,
    policy: str = "persona",
    scenario: str | Path | Scenario | None = "baseline",
    llm: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> EconomyModel:
    """Run the economy and write the run files into `out` (replacing earlier ones); returns the model.

    `ticks` defaults to the scenario's suggestion, else 240 months (EconAgent's 20 years). `llm` is validated
    and stored in config.json for cognitive policies; the rule policies do not call a model.
    """
    llm = check_llm(llm)
    scen = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    n_ticks = ticks if ticks is not None else scen.ticks or 240
    if n_ticks < 1 or agents < 1:
        raise ValueError(f"need agents >= 1 and ticks >= 1, got agents={agents}, ticks={n_ticks}")
    pol = make_policy(policy)
    use_llm = getattr(pol, "use_llm", None)
    if callable(use_llm):  # LLM policies: the model named by --llm (offline when not given)
        use_llm(llm or "offline")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name in RUN_FILES:
        (folder / name).unlink(missing_ok=True)
    model = EconomyModel(seed=seed, policy=pol, scenario=scen, households=agents,
                         events_path=folder / "events.jsonl")  # fmt: skip
    config: dict[str, Any] = {
        "seed": seed, "agents": agents, "ticks": n_ticks, "policy": pol.name, "llm": llm,
        "scenario": scen.model_dump(mode="json"), "economy": model.config.model_dump(mode="json"),
        "files": {"macro.csv": "one row per tick", "agents.csv": ["tick", "agent_id", *AGENT_COLUMNS],
                  "assets.csv": list(ASSET_COLUMNS), "events.jsonl": "one bus event per line"},
    }  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    try:
        with run_log(folder):
            model.run(n_ticks, progress)
    finally:
        model.close()
    write_tables(model, folder)
    client = getattr(pol, "client", None)
    if client is not None and hasattr(client, "write_usage"):
        client.write_usage(str(folder))
    return model
