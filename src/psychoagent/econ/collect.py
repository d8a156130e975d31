"""Mesa DataCollector set-up and the run tables it feeds: macro, agents and assets (Parquet, or CSV as before)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
from mesa import DataCollector

from psychoagent.agent.eventlog import EventLogSettings, write_atomic
from psychoagent.econ.agents import CognitiveHousehold, Household
from psychoagent.econ.households import ALLOC_COLUMNS, TRAIT_COLUMNS
from psychoagent.econ.markets import ASSET_COLUMNS

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy

AGENT_COLUMNS = (
    "sector", "persona", "wealth", "cash", "deposits", "income", "wage_income", "worked", "consumption",
    "consume_share", "work_prob", *TRAIT_COLUMNS, *ALLOC_COLUMNS, "risky_value",
    "joined", "expected_inflation",
)  # fmt: skip
"""Columns of agents.csv after `tick` and `agent_id` (money per month; traits from the household's persona;
`wealth` is money, cash and deposits, and `risky_value` the stocks and steel held, at the month's last prices;
`joined` the month the household's present member joined, `expected_inflation` its expected inflation over the
next 12 months, empty where it forms none)."""


def agent_rows(model: Economy) -> list[tuple[Any, ...]]:
    """One tuple per household (in AGENT_COLUMNS order), built with whole-array conversions for speed."""
    hh = model.households
    cols: list[list[Any]] = [
        [model.sector_names[k] for k in hh.sector.tolist()], [p.name for p in model.personas],
        hh.wealth.tolist(), hh.cash.tolist(), hh.deposits.tolist(), hh.income.tolist(), hh.wage_income.tolist(),
        hh.worked.astype(int).tolist(), hh.consumption.tolist(), hh.consume_share.tolist(), hh.work_prob.tolist(),
        *(hh.traits[:, j].tolist() for j in range(4)), *(hh.allocation[:, j].tolist() for j in range(4)),
        model.markets.risky_values().tolist(), hh.joined.tolist(), hh.expected_inflation.tolist(),
    ]  # fmt: skip
    return list(zip(*cols, strict=True))


def make_collector(model: Economy) -> DataCollector:
    """Model reporters for every indicator; a reporter for rule and cognitive households returning the
    household's row tuple."""
    keys = [k for k in model.metrics if k != "tick"]
    reporters = {k: (lambda m, k=k: m.metrics[k]) for k in keys}
    agent: dict[type, dict[str, Any]] = {}
    if model.config.record_agents:
        row = {"row": lambda a: a.model.agent_table[a.index]}
        agent = {Household: row, CognitiveHousehold: dict(row)}
    return DataCollector(model_reporters=reporters, agenttype_reporters=agent)


def macro_frame(model: Economy) -> pd.DataFrame:
    """macro.csv as a frame: one row per tick, `tick` first."""
    df = model.datacollector.get_model_vars_dataframe().reset_index(drop=True)
    df.insert(0, "tick", np.arange(1, len(df) + 1))
    return df


def agents_frame(model: Economy) -> pd.DataFrame:
    """agents.csv as a frame: one row per household per tick."""
    if not model.config.record_agents:
        return pd.DataFrame(columns=["tick", "agent_id", *AGENT_COLUMNS])
    kinds = [t for t in (Household, CognitiveHousehold) if len(model.agents_by_type.get(t, ()))]
    parts = [
        model.datacollector.get_agenttype_vars_dataframe(t) for t in kinds
    ]  # (Mesa pads a type with none)
    if not parts:
        return pd.DataFrame(columns=["tick", "agent_id", *AGENT_COLUMNS])
    raw = pd.concat([p.reset_index() for p in parts], ignore_index=True)
    raw = raw.sort_values(["Step", "AgentID"], kind="stable").drop_duplicates(["Step", "AgentID"])
    body = pd.DataFrame(raw["row"].tolist(), columns=list(AGENT_COLUMNS))
    body.insert(0, "agent_id", raw["AgentID"].to_numpy())
    body.insert(0, "tick", raw["Step"].to_numpy())
    return body


def assets_frame(model: Economy) -> pd.DataFrame:
    """assets.csv as a frame: one row per instrument per trading round (ASSET_COLUMNS)."""
    return pd.DataFrame(model.markets.records, columns=list(ASSET_COLUMNS))


TABLES = {"macro": macro_frame, "agents": agents_frame, "assets": assets_frame}
CSV_FLOATS = "%.10g"
"""How the CSV tables write floats (10 significant digits); `psychoagent export --csv` writes the same."""


def write_tables(
    model: Economy, out: Path, columnar: bool = True, settings: EventLogSettings | None = None
) -> None:
    """Write the macro, agents and assets tables into `out`: `<name>.parquet` (each written whole, then renamed
    into place), or with `columnar` False `<name>.csv` (floats with 10 significant digits)."""
    out.mkdir(parents=True, exist_ok=True)
    settings = settings or EventLogSettings()
    for name, frame in TABLES.items():
        df = frame(model)
        if columnar:
            if name == "agents" and settings.table_floats == "float32":
                df = df.astype({c: np.float32 for c in df.columns if df[c].dtype == np.float64})
            write_atomic(pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet", settings)
        else:
            df.to_csv(out / f"{name}.csv", index=False, float_format=CSV_FLOATS)
