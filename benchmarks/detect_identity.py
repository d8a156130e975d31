"""Write-path identity check: dump what conflict detection decided on fixed data, then compare two dumps (before /
after a change to the write path).

``python -m benchmarks.detect_identity dump OUT.json`` stores, with the hashing embedder and fixed timestamps,
through `observe_many`:

- ``bench-none`` / ``bench-default``: the write benchmark's synthetic events (`bench_memory.sentences(5000,
  seed=4)`, batches of 1,000), without an appraiser and with the default heuristic one;
- ``scenarios-shared``: the old and new facts of every dev scenario of `benchmarks.conflict_gen` (seed 0) in one
  memory, in scenario order at their own times (so later batches meet earlier and later facts), batches of 1,000;
- ``scenarios-each``: each dev scenario's timeline (old fact, distractors, new fact, distractors) in a fresh
  default memory, one `observe_many` call each.

For every case it writes each unit (id, text, whether current, its successor, its affect and conflict context),
each conflict record (sides, kind, intensity, time, metadata), sorted, and, in the order they were made, the
candidates each new unit was judged against (ids, exact dense similarity, slot key) and every probability row the
pair scorer gave (exact floats): a change that moves a feature by one bit shows there. ``python -m benchmarks.detect_identity
compare BEFORE.json AFTER.json`` prints, per case, the number of units and records and how many differ.

The order in which a unit's candidates are met follows the iteration order of its subject keys (a set of strings),
which Python's string hashing varies per process: the dump runs with ``PYTHONHASHSEED=0`` (it restarts itself
with it when unset), so that two dumps compare their traces entry by entry.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.bench_memory import sentences
from benchmarks.conflict_gen import generate, split
from benchmarks.identity_cli import identity_main
from psychoagent import Memory
from psychoagent.embed import HashingEmbedder
from psychoagent.memory.conflicts.detect import PairScorer
from psychoagent.memory.write import updates

START = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)
"""The synthetic events are stored one second apart from here, so their ids (which hash the time) repeat."""
BATCH = 1000

Case = dict[str, list[Any]]


def _ts(stamp: str) -> dt.datetime:
    """The generator's ISO timestamps (trailing Z)."""
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


@contextmanager
def traced() -> Iterator[list[Any]]:
    """Record, while inside, each `judge` call's candidates and each probability row of the pair scorer."""
    log: list[Any] = []
    judge, probabilities = updates.judge, PairScorer.probabilities

    def judge_traced(
        scorer: Any, content: str, created: float, candidates: Any, *args: Any, **kw: Any
    ) -> Any:
        log.append(["judge", content, [[c.unit_id, c.dense, c.slot_key] for c in candidates]])
        return judge(scorer, content, created, candidates, *args, **kw)

    def probabilities_traced(self: PairScorer, features: Any) -> Any:
        out = probabilities(self, features)
        log.append(["p", out.tolist()])
        return out

    updates.judge = judge_traced
    PairScorer.probabilities = probabilities_traced  # type: ignore[method-assign]
    try:
        yield log
    finally:
        updates.judge = judge
        PairScorer.probabilities = probabilities  # type: ignore[method-assign]


def state(mem: Memory) -> Case:
    """Every unit's validity and affect, every conflict record (sorted by id)."""
    units = [
        [u.id, u.content, u.invalid_at is None, u.invalid_at.isoformat() if u.invalid_at else None,
         u.metadata.get("superseded_by"), u.affect.model_dump(mode="json"), u.conflict_context]
        for u in mem.units()
    ]  # fmt: skip
    records = [
        [r.id, r.kind, r.side_a, r.side_b, r.intensity, r.created_at.isoformat(), r.description_a,
         r.description_b, r.metadata]
        for r in mem.conflicts()
    ]  # fmt: skip
    return {"units": sorted(units, key=lambda u: u[0]), "records": sorted(records, key=lambda r: r[0])}


def stored(items: list[dict[str, Any]], appraiser: bool) -> Case:
    """`state` of a fresh hashing memory after storing `items` in batches, with the trace of its judgements."""
    mem = (
        Memory(embedder=HashingEmbedder(384))
        if appraiser
        else Memory(embedder=HashingEmbedder(384), appraiser=None)
    )
    with traced() as log:
        for pos in range(0, len(items), BATCH):
            mem.observe_many(items[pos : pos + BATCH])
    out = {**state(mem), "trace": log}
    mem.close()
    return out


def bench_items() -> list[dict[str, Any]]:
    return [
        {"text": t, "timestamp": START + dt.timedelta(seconds=i)}
        for i, t in enumerate(sentences(5000, seed=4))
    ]


def scenarios_each(dev: list[Any]) -> Case:
    """Each dev scenario's timeline in a fresh default memory; units and records of all of them together."""
    out: Case = {"units": [], "records": [], "trace": []}
    embedder = HashingEmbedder(384)
    for item in dev:
        mem = Memory(embedder=embedder)
        with traced() as log:
            mem.observe_many([{"text": t, "timestamp": _ts(s)} for t, s in item.timeline()])
        one = state(mem)
        out["trace"] += [[item.id, *entry] for entry in log]
        mem.close()
        out["units"] += [[item.id, *u] for u in one["units"]]
        out["records"] += [[item.id, *r] for r in one["records"]]
    return out


def dump(args: argparse.Namespace) -> None:
    if (
        os.environ.get("PYTHONHASHSEED") != "0"
    ):  # the same string hashes, so the same candidate order, each run
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, "PYTHONHASHSEED": "0"})
    dev, _ = split(generate(0))
    facts = [{"text": t, "timestamp": _ts(s)} for i in dev for t, s in ((i.old, i.t_old), (i.new, i.t_new))]
    out = {
        "bench-none": stored(bench_items(), appraiser=False),
        "bench-default": stored(bench_items(), appraiser=True),
        "scenarios-shared": stored(facts, appraiser=False),
        "scenarios-each": scenarios_each(dev[: args.scenarios] if args.scenarios else dev),
    }
    Path(args.out).write_text(json.dumps(out, sort_keys=True))
    print(f"wrote {args.out}: " + ", ".join(
        f"{k} ({len(v['units'])} units, {len(v['records'])} records, "
        f"{sum(not u[2 if k != 'scenarios-each' else 3] for u in v['units'])} superseded)"
        for k, v in out.items()
    ))  # fmt: skip


def _differing(before: list[Any], after: list[Any]) -> int:
    """Entries that differ position by position, plus those only one list has."""
    return sum(x != y for x, y in zip(before, after, strict=False)) + abs(len(before) - len(after))


def compare(args: argparse.Namespace) -> None:
    before, after = (json.loads(Path(p).read_text()) for p in (args.before, args.after))
    print(
        "| case | units | units differing | records before | records after | records differing | trace entries "
        "| trace entries differing |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    same = True
    for key in before:
        b, a = before[key], after.get(key, {"units": [], "records": [], "trace": []})
        units = _differing(b["units"], a["units"])
        recs_a = {json.dumps(r, sort_keys=True) for r in a["records"]}
        recs_b = {json.dumps(r, sort_keys=True) for r in b["records"]}
        records = len(recs_a ^ recs_b)
        trace = _differing(b["trace"], a["trace"])
        same = same and not units and not records and not trace
        print(
            f"| {key} | {len(b['units'])} | {units} | {len(b['records'])} | {len(a['records'])} | {records} "
            f"| {len(b['trace'])} | {trace} |"
        )
    print("identical" if same else "DIFFERENT")


def main(argv: list[str] | None = None) -> None:
    def options(d: argparse.ArgumentParser) -> None:
        d.add_argument("--scenarios", type=int, default=0, help="dev scenarios of scenarios-each (0: all)")

    dump_help = "write the units and conflict records of every case to a JSON file"
    identity_main(__doc__, dump, compare, dump_help, options, argv)


if __name__ == "__main__":
    main()
