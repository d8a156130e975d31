"""Per-agent indexes of a run for the explorer: one pass over the run files (through `eval.rundata`, the only
reader of the run-file format) gives the agents table, and each agent's persona, affect, memories, conflicts and
traced decisions; they are cached beside the run, so a later open reads one small file and an agent page one more.
"""

from __future__ import annotations

import json
import math
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.explore.config import ExploreConfig

try:
    from orjson import OPT_SERIALIZE_NUMPY
    from orjson import dumps as _orjson_dumps

    def _dumps(value: Any) -> bytes:
        return _orjson_dumps(value, option=OPT_SERIALIZE_NUMPY)
except ImportError:  # orjson is optional: the standard encoder writes the same JSON, slower

    def _dumps(value: Any) -> bytes:
        return json.dumps(value).encode("utf-8")


VERSION = 1
"""Layout of the cache files; a cache of another version is rebuilt."""
TRAITS = ("risk_preference", "optimism", "learning_rate", "social_tendency")
SERIES = ("income", "worked", "consumption", "consume_share", "cash", "deposits")
MIND = (EventType.MEMORY_FORMED, EventType.PERSONA_EVOLVED, EventType.BELIEF_FORMED, EventType.MIND_DECISION,
        EventType.GUARDRAIL_ADJUSTED, EventType.GUARDRAIL_REJECTED, EventType.GUARDRAIL_VETOED)  # fmt: skip
"""The event types read per household (by their `household:N` source)."""


def _num(value: Any) -> float | None:
    """A JSON-safe number (None for NaN or infinity)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _column(frame: pd.DataFrame, name: str) -> list[float | None]:
    return [_num(v) for v in frame[name]] if name in frame.columns else []


class RunIndex:
    """The explorer's view of one run: summary, agents table and agent pages, cached in `<run>/.explore`."""

    def __init__(self, run: RunData, config: ExploreConfig | None = None) -> None:
        self.run = run
        self.config = config or ExploreConfig()
        self.folder = run.path / self.config.cache_folder
        self.summary: dict[str, Any] = {}
        self.rows: list[dict[str, Any]] = []
        self._agents: dict[int, dict[str, Any]] = {}
        """Agent pages held in memory (all of them when the cache could not be written)."""
        self._kept = False
        self.ready = threading.Event()
        """Set once the table and the agent pages can be read (at once from a valid cache)."""
        self.failure: str | None = None
        """Why a background build failed (None while it runs or after it succeeded)."""

    @classmethod
    def open(
        cls, path: str | Path, config: ExploreConfig | None = None, background: bool = False
    ) -> RunIndex:
        """Open a run folder (FileNotFoundError / ValueError when it is not one), from its cache when valid; else
        build the index now, or with `background` in a thread (the overview is ready at once, the rest when
        `ready` is set), so a server can answer while a big run is indexed."""
        index = cls(RunData.open(path), config)
        if index.load():
            index.ready.set()
        elif not background:
            index.build()
        else:
            index.summary = {**index._summary({}), "indexing": True}
            threading.Thread(target=index._build_in_background, name="explore-index", daemon=True).start()
        return index

    def _build_in_background(self) -> None:
        try:
            self.build()
        except Exception as exc:  # reported by the API instead of dying silently in the thread
            self.failure = f"indexing {self.run.path} failed: {exc}"
            self.ready.set()

    # -- the cache ----------------------------------------------------------------------------------------------
    def load(self) -> bool:
        """Read the cached table and summary; False when missing, stale or of another version."""
        try:
            head = json.loads((self.folder / "index.json").read_bytes())
        except (OSError, ValueError):
            return False
        if head.get("version") != VERSION or head.get("stamp") != self.run.stamp():
            return False
        self.summary, self.rows, self._kept = head["summary"], head["rows"], True
        return True

    def save(self, pages: dict[int, dict[str, Any]]) -> bool:
        """Write the cache (index.json last, so a half-written cache is never read); False when not writable."""
        try:
            (self.folder / "agents").mkdir(parents=True, exist_ok=True)
            for i, page in pages.items():
                (self.folder / "agents" / f"{i}.json").write_bytes(_dumps(page))
            head = {"version": VERSION, "stamp": self.run.stamp(), "summary": self.summary, "rows": self.rows}
            (self.folder / "index.json").write_bytes(_dumps(head))
        except OSError:
            return False
        return True

    # -- reading ------------------------------------------------------------------------------------------------
    def agent(self, agent_id: int) -> dict[str, Any] | None:
        """One agent's page (None when the run has no such agent)."""
        if agent_id in self._agents:
            return self._agents[agent_id]
        if not self._kept:
            return None
        try:
            page = json.loads((self.folder / "agents" / f"{agent_id}.json").read_bytes())
        except (OSError, ValueError):
            return None
        if len(self._agents) >= self.config.pages_in_memory:
            self._agents.pop(next(iter(self._agents)))
        self._agents[agent_id] = page
        return page

    def month(self, agent_id: int, tick: int) -> dict[str, Any] | None:
        """What agent `agent_id` recalled, decided and went through at month `tick` (None: no such agent)."""
        page = self.agent(agent_id)
        if page is None:
            return None
        traces = page["traces"]
        decision = traces.get(str(tick))
        at = page["persona"]["tick"]
        persona = {
            t: page["persona"][t][at.index(tick)] for t in TRAITS if tick in at and page["persona"].get(t)
        }
        return {"id": agent_id, "tick": tick, "traced": bool(traces), "decision": decision, "persona": persona,
                "memories": [m for m in page["memories"] if m["tick"] == tick],
                "moves": [m for m in page["moves"] if m["tick"] == tick],
                "guardrails": [g for g in page["guardrails"] if g["tick"] == tick],
                "decided_months": sorted(int(k) for k in traces)}  # fmt: skip

    # -- building -----------------------------------------------------------------------------------------------
    def build(self) -> None:
        """Read the run files once, make every agent's page and the table, and cache them beside the run."""
        run = self.run
        minds = self._minds()
        pages: dict[int, dict[str, Any]] = {}
        frame = run.agents
        wealth = run.wealth_column
        if frame is not None:
            index = run.household_index()
            for mesa_id, rows in frame.sort_values("tick").groupby("agent_id", sort=True):
                i = index[int(mesa_id)]
                pages[i] = self._page(i, rows, wealth, minds.get(i, {}))
        for agent_id in sorted(set(minds) - set(pages)):
            pages[agent_id] = self._page(agent_id, None, None, minds[agent_id])
        self.rows = [self._row(p) for p in pages.values()]
        self.summary = self._summary(minds)
        self._kept = self.save(pages)
        self._agents = {} if self._kept else pages
        self.ready.set()

    def _minds(self) -> dict[int, dict[str, list[dict[str, Any]]]]:
        """The household events of the run grouped by household and type (only the mind's event types read)."""
        out: dict[int, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
        for event in self.run.iter_events(*MIND, ordered=False):
            source = str(event.get("source", ""))
            if not source.startswith("household:"):
                continue
            payload = event.get("payload") or {}
            payload["tick"] = int(event.get("tick", 0))
            out[int(source.split(":", 1)[1])][str(event["type"])].append(payload)
        return out

    def _page(self, agent_id: int, rows: pd.DataFrame | None, wealth: str | None,
              events: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:  # fmt: skip
        """One agent's page: series from the agents table, the mind from its events."""
        ticks = [int(t) for t in rows["tick"]] if rows is not None else []
        persona = (
            {"tick": ticks, **{t: _column(rows, t) for t in TRAITS}} if rows is not None else {"tick": []}
        )
        series = {"tick": ticks, **({s: _column(rows, s) for s in SERIES} if rows is not None else {})}
        if rows is not None and wealth is not None:
            series["wealth"] = _column(rows, wealth)
        last = rows.iloc[-1] if rows is not None and len(rows) else None
        memories = [{"tick": m["tick"], "count": m.get("count", 1), "text": m.get("strongest", ""),
                     "valence": m.get("valence", 0), "arousal": m.get("arousal", 1), "conflict": m.get("conflict", 0),
                     "clashes": m.get("clashes", 0), "clash": m.get("clash", ""), "kinds": m.get("kinds", {})}
                    for m in events.get(EventType.MEMORY_FORMED, [])]  # fmt: skip
        moves = [{"tick": m["tick"], "expected": _num(m.get("expected")), "actual": _num(m.get("actual")),
                  "stake": _num(m.get("stake")), "why": str(m.get("explanation", "")).split("\n")[0],
                  "deltas": {k: v for k, v in (m.get("deltas") or {}).items()
                             if abs(_num(v) or 0) >= self.config.min_delta}}
                 for m in events.get(EventType.PERSONA_EVOLVED, [])]  # fmt: skip
        guards = [{"tick": g["tick"], "kind": kind.split(".")[-1], "rule": g.get("rule", ""),
                   "reason": g.get("reason", ""), "order": g.get("order", g.get("intent", ""))}
                  for kind in (EventType.GUARDRAIL_ADJUSTED, EventType.GUARDRAIL_REJECTED, EventType.GUARDRAIL_VETOED)
                  for g in events.get(kind, [])]  # fmt: skip
        traces = {str(d["tick"]): d for d in events.get(EventType.MIND_DECISION, [])}
        for trace in traces.values():  # lists written once and referred to by month after that
            for name in ("recalled", "beliefs"):
                month = trace.pop(f"{name}_as", None)
                if month is not None:
                    trace[name] = traces.get(str(month), {}).get(name, [])
        conflicts, seen = [], set()
        for tick, trace in sorted(traces.items(), key=lambda p: int(p[0])):
            for c in trace.get("conflicts", []):
                key = (c.get("a"), c.get("b"))
                if key not in seen:
                    seen.add(key)
                    conflicts.append({**c, "tick": int(tick), "current": "b"})
        return {
            "id": agent_id,
            "persona_label": str(last["persona"]) if last is not None and "persona" in rows.columns else "",  # type: ignore[union-attr]
            "sector": str(last["sector"]) if last is not None and "sector" in rows.columns else "",  # type: ignore[union-attr]
            "persona": persona, "series": series, "memories": memories, "moves": moves,
            "affect": [{"tick": m["tick"], "valence": m["valence"], "arousal": m["arousal"],
                        "conflict": m["conflict"]} for m in memories],
            "beliefs": [{"tick": b["tick"], "text": b.get("belief", "")} for b in events.get(EventType.BELIEF_FORMED, [])],
            "conflicts": conflicts, "guardrails": sorted(guards, key=lambda g: g["tick"]), "traces": traces,
            "decisions": [{"tick": int(t), "type": (d.get("decision") or {}).get("type", ""),
                           "intent": (d.get("decision") or {}).get("intent", ""),
                           "approved": len(d.get("approved", [])), "rejected": len(d.get("rejected", [])),
                           "vetoed": len(d.get("vetoed", [])), "adjusted": len(d.get("adjusted", []))}
                          for t, d in sorted(traces.items(), key=lambda p: int(p[0]))],
        }  # fmt: skip

    @staticmethod
    def _row(page: dict[str, Any]) -> dict[str, Any]:
        """The agents-table row of a page: last traits and wealth, employment, mean affect, counts."""

        def last(values: list[Any]) -> Any:
            return values[-1] if values else None

        series, persona, memories = page["series"], page["persona"], page["memories"]
        worked = last(series.get("worked", []))
        row = {"id": page["id"], "persona": page["persona_label"], "sector": page["sector"],
               "wealth": last(series.get("wealth", [])), "income": last(series.get("income", [])),
               "employed": None if worked is None else bool(worked > 0.5)}  # fmt: skip
        row.update({t: last(persona.get(t, [])) for t in TRAITS})
        n = len(memories)
        row["valence"] = round(sum(m["valence"] for m in memories) / n, 3) if n else None
        row["arousal"] = round(sum(m["arousal"] for m in memories) / n, 3) if n else None
        row["memories"] = sum(int(m["count"]) for m in memories)
        row["conflicts"] = len(page["conflicts"])
        row["decisions"] = len(page["decisions"])
        row["moves"] = len(page["moves"])
        return row

    def _summary(self, minds: dict[int, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
        """The overview: macro series, asset prices, shocks, configuration, metrics and counts of mind events."""
        run = self.run
        macro = run.macro
        assets: dict[str, dict[str, list[Any]]] = {}
        if run.assets is not None and {"tick", "asset", "price"} <= set(run.assets.columns):
            closing = run.assets.groupby(["asset", "tick"], sort=True).last().reset_index()
            for name, rows in closing.groupby("asset"):
                assets[str(name)] = {"tick": [int(t) for t in rows["tick"]], "price": _column(rows, "price"),
                                     "volume": _column(rows, "volume")}  # fmt: skip
        metrics = None
        if (run.path / "metrics.json").is_file():
            try:
                metrics = json.loads((run.path / "metrics.json").read_text(encoding="utf-8")).get("metrics")
            except ValueError:
                metrics = None
        counts: dict[str, int] = defaultdict(int)
        for kinds in minds.values():
            for kind, events in kinds.items():
                counts[kind] += len(events)
        return {"path": str(run.path), "ticks": run.ticks, "agents": len(self.rows), "shocks": run.shocks(),
                "config": run.config, "metrics": metrics, "mind_events": dict(counts),
                "macro": {c: ([int(t) for t in macro[c]] if c == "tick" else _column(macro, c)) for c in macro.columns},
                "assets": assets, "traced": sum(1 for r in self.rows if r["decisions"])}  # fmt: skip
