"""The explorer's view of a run, read through `eval.rundata` (the only reader of the run-file format): the summary
and the agents table come from column reads on first open; agent pages are made on demand from per-agent copies
of the agents table and mind events (sorted by household, see `store`), held in memory until they are written;
all of it is cached beside the run.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import OrderedDict, defaultdict
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from psychoagent.agent.eventlog import json_columns, payloads
from psychoagent.eval.rundata import RunData
from psychoagent.explore import page as pages
from psychoagent.explore import texts
from psychoagent.explore.config import ExploreConfig
from psychoagent.explore.page import MIND, Events, column
from psychoagent.explore.store import PREFIX, AgentStore, Keyed, keyed
from psychoagent.explore.table import agents_table, table_rows
from psychoagent.explore.texts import KIND, LIGHT, TEXTS, light, resolve

try:
    from orjson import OPT_SERIALIZE_NUMPY
    from orjson import dumps as _orjson_dumps

    def _dumps(value: Any) -> bytes:
        return _orjson_dumps(value, option=OPT_SERIALIZE_NUMPY)
except ImportError:  # orjson is optional: the standard encoder writes the same JSON, slower

    def _dumps(value: Any) -> bytes:
        return json.dumps(value).encode("utf-8")


VERSION = 3
"""Layout of the cache; a cache of another version is rebuilt."""
ROWS = "agents/rows"
"""The per-agent copy of the agents table."""
TEXT_COPIES = f"texts/{KIND}/"
"""The per-agent copies of the traced decisions' long texts (written after those pages need)."""


def use_memory_pool(name: str) -> None:
    """Make pyarrow allocate from pool `name` in this process (see `ExploreConfig.memory_pool`; the command calls it
    before opening a run, as its process is the explorer's own); a pool this pyarrow lacks leaves the default."""
    try:
        pool = getattr(pa, f"{name}_memory_pool")() if name else None
    except (AttributeError, NotImplementedError):
        return
    if pool is not None:
        pa.set_memory_pool(pool)


class RunIndex:
    """The explorer's view of one run: summary, agents table and agent pages, cached in `<run>/.explore`."""

    def __init__(self, run: RunData, config: ExploreConfig | None = None) -> None:
        self.run = run
        self.config = config or ExploreConfig()
        self.folder = run.path / self.config.cache_folder
        self.store = AgentStore(self.folder, self.config)
        self.summary: dict[str, Any] = {}
        self.rows: list[dict[str, Any]] = []
        self._ids: set[int] = set()
        self._pages: OrderedDict[int, dict[str, Any]] = OrderedDict()
        """The pages made last, at most `pages_in_memory`."""
        self._events: dict[int, Events] | None = None
        """The mind events by household of a run written as events.jsonl (it has no parts to copy)."""
        self._lock = threading.Lock()
        self.ready = threading.Event()
        """Set once the summary and the agents table can be read (at once from a valid cache)."""
        self.paged = threading.Event()
        """Set once agent pages can be made (from the tables they need, held in memory until written as copies)."""
        self.texted = threading.Event()
        """Set once a month's decision texts can be read (from memory, before their copies are written)."""
        self.built = threading.Event()
        """Set once the first open's work is over: every copy written and the cache's index.json (when writable)."""
        self.failure: str | None = None
        """Why a background build failed (None while it runs or after it succeeded)."""

    @classmethod
    def open(
        cls, path: str | Path, config: ExploreConfig | None = None, background: bool = False
    ) -> RunIndex:
        """Open a run folder (FileNotFoundError / ValueError when it is not one), from its cache when valid; else
        build the index now, or with `background` in a thread (the overview is ready at once, the table when
        `ready` is set, the pages when `paged` is), so a server can answer while a big run is indexed."""
        index = cls(RunData.open(path), config)
        if index.load():  # every part of it is ready at once
            return index
        if not background:
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
            self.paged.set()
            self.texted.set()
            self.built.set()

    # -- the cache ----------------------------------------------------------------------------------------------
    def load(self) -> bool:
        """Read the cached table and summary (and set every readiness event); False when missing, stale, of another
        version, with a copy missing, or of a run written as events.jsonl (its pages come from events in memory)."""
        try:
            head = json.loads((self.folder / "index.json").read_bytes())
        except (OSError, ValueError):
            return False
        if head.get("version") != VERSION or head.get("stamp") != self.run.stamp() or not self.run.columnar:
            return False
        if not self.store.complete(head.get("copies", [])):
            return False
        self.summary, self.rows = head["summary"], head["rows"]
        self._ids = {int(r["id"]) for r in self.rows}
        for done in (self.ready, self.paged, self.texted, self.built):
            done.set()
        return True

    def save(self) -> bool:
        """Write index.json, after the copies (a half-written cache is never read); False when not writable."""
        head = {"version": VERSION, "stamp": self.run.stamp(), "summary": self.summary, "rows": self.rows,
                "copies": self.store.written}  # fmt: skip
        try:
            (self.folder / "index.json").write_bytes(_dumps(head))
        except OSError:
            return False
        return True

    # -- building -----------------------------------------------------------------------------------------------
    def build(self) -> None:
        """First open: the summary and the agents table from column reads (then `ready` is set), then the
        tables pages need (then `paged`) and the decisions' long texts (then `texted`) read into memory, then all
        of them sorted and written as per-agent copies, and the cache's index.json last."""
        with contextlib.suppress(OSError):
            (self.folder / "index.json").unlink(missing_ok=True)
        agents = agents_table(self.run)
        self.rows, counts = table_rows(self.run, agents)
        self._ids = {int(r["id"]) for r in self.rows}
        self.summary = self._summary(counts)
        self.ready.set()
        self._hold(agents)
        self.paged.set()
        if self.run.columnar:
            for n, (table, _) in enumerate(self.run.event_parts(KIND, texts.columns())):
                self.store.hold(f"{TEXT_COPIES}{n:06d}", keyed(table))
        self.texted.set()
        self.store.flush()
        if self.store.memory is None and self.run.columnar:
            self.save()
        self.built.set()

    def _hold(self, agents: Keyed | None) -> None:
        """Hold in memory what pages need, to be written as per-agent copies: the agents table, and each part of
        each mind-event type without the long texts of decisions (read next) and with only what a page shows."""
        self.store.clear()
        if agents is not None:
            self.store.hold(ROWS, agents)
        if not self.run.columnar:
            self._events = self._grouped()
            return
        for kind in MIND:
            for n, (table, _) in enumerate(self.run.event_parts(kind, LIGHT if kind == KIND else None)):
                self.store.hold(f"events/{kind}/{n:06d}", keyed(table, partial(light, kind)))

    def _grouped(self) -> dict[int, Events]:
        """The mind events of a run written as events.jsonl, by household and type."""
        out: dict[int, Events] = defaultdict(lambda: defaultdict(list))
        for event in self.run.iter_events(*MIND, ordered=False):
            source = str(event.get("source", ""))
            if source.startswith(PREFIX):
                payload = event.get("payload") or {}
                payload["tick"] = int(event.get("tick", 0))
                out[int(source[len(PREFIX) :])][str(event["type"])].append(payload)
        return out

    # -- reading ------------------------------------------------------------------------------------------------
    def agent(self, agent_id: int) -> dict[str, Any] | None:
        """One agent's page (None when the run has no such agent), made from its copies on first request."""
        if agent_id not in self._ids:
            return None
        with self._lock:
            if agent_id in self._pages:
                self._pages.move_to_end(agent_id)
                return self._pages[agent_id]
        made = self._make(agent_id)
        with self._lock:
            self._pages[agent_id] = made
            while len(self._pages) > self.config.pages_in_memory:
                self._pages.popitem(last=False)
        return made

    def _make(self, agent_id: int) -> dict[str, Any]:
        """One agent's page from its rows of the copies (or from the events held in memory)."""
        rows = self.store.rows(ROWS, agent_id)
        frame = None if rows is None else rows.to_pandas()
        if self._events is not None:
            held = self._events.get(agent_id, {})  # copied: a page resolves its traces in place
            events: Events = {kind: [dict(p) for p in got] for kind, got in held.items()}
        else:
            events = defaultdict(list)
            for kind in MIND:
                for table in self.store.each(f"events/{kind}/", agent_id):
                    for event in payloads(table, json_columns(table.schema), kind):
                        events[kind].append({**event["payload"], "tick": int(event["tick"])})
        shared = ("recalled", "beliefs") if self._events is not None else ("beliefs",)
        return pages.build(agent_id, frame, self.run.wealth_column, events, self.config.min_delta, shared)

    def month(self, agent_id: int, tick: int) -> dict[str, Any] | None:
        """What agent `agent_id` recalled, decided and went through at month `tick` (None: no such agent); on first
        open it waits for the decisions' texts (TimeoutError after `texts_wait` seconds)."""
        if not self.texted.wait(self.config.texts_wait):
            raise TimeoutError(f"reading the decisions' texts of {self.run.path} (once): try again shortly")
        found = self.agent(agent_id)
        if found is None:
            return None
        answer = pages.month(found, tick)
        trace = answer["decision"]
        if trace is not None and self._events is None:  # its texts are kept apart: read them for this month
            months = {tick} | (
                {int(trace[f"{TEXTS[1]}_as"])} if trace.get(f"{TEXTS[1]}_as") is not None else set()
            )
            got = texts.texts(self.store.each(TEXT_COPIES, agent_id), months)
            answer["decision"] = resolve(trace, got, tick)
        return answer

    def _summary(self, counts: dict[str, int]) -> dict[str, Any]:
        """The overview: macro series, asset prices, shocks, configuration, metrics and counts of mind events."""
        run = self.run
        macro = run.macro
        assets: dict[str, dict[str, list[Any]]] = {}
        if run.assets is not None and {"tick", "asset", "price"} <= set(run.assets.columns):
            closing = run.assets.groupby(["asset", "tick"], sort=True).last().reset_index()
            for name, rows in closing.groupby("asset"):
                assets[str(name)] = {"tick": [int(t) for t in rows["tick"]], "price": column(rows, "price"),
                                     "volume": column(rows, "volume")}  # fmt: skip
        metrics = None
        if (run.path / "metrics.json").is_file():
            try:
                metrics = json.loads((run.path / "metrics.json").read_text(encoding="utf-8")).get("metrics")
            except ValueError:
                metrics = None
        return {"path": str(run.path), "ticks": run.ticks, "agents": len(self.rows), "shocks": run.shocks(),
                "config": run.config, "metrics": metrics, "mind_events": counts,
                "macro": {c: ([int(t) for t in macro[c]] if c == "tick" else column(macro, c)) for c in macro.columns},
                "assets": assets, "traced": sum(1 for r in self.rows if r["decisions"])}  # fmt: skip
