"""Recall identity check: dump the ids recall returns on fixed data, then compare two dumps (before / after a change).

``python -m benchmarks.recall_identity dump OUT.json`` writes, for each case, the top-k ids of every query:

- ``bench-N-exact`` / ``bench-N-default``: the latency benchmark's synthetic units (`bench_memory`) at N units,
  the exact scan first, then the default dense search (IVF above `ann_min_rows`) on the same memory (top-10
  texts, as the ids depend on the write time);
- ``fixture-hash`` (and ``fixture-e5`` with ``--e5``): the bilingual retrieval fixture in a default `Memory`
  (heuristic appraisal and conflict detection on), top-5 per query;
- ``conflicts-hash``: the generated conflict scenarios (`conflict_fixture`), one fresh default memory each, old
  fact, distractors and new fact an hour apart, top-5 for the question.

``python -m benchmarks.recall_identity compare BEFORE.json AFTER.json`` prints, per case, the share of queries
whose id lists are identical and the mean overlap of the id sets (recall@k of AFTER against BEFORE). The dense
search alone against the exact scan is `bench_memory`'s "IVF recall@10 vs exact" (here the default run follows
the exact one and sees the accesses it counted).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

import numpy as np

from benchmarks.bench_memory import queries, sentences
from benchmarks.conflict_fixture import build as conflict_scenarios
from benchmarks.identity_cli import identity_main
from benchmarks.retrieval_fixture import build as fixture
from psychoagent import Memory
from psychoagent.embed import E5Embedder, HashingEmbedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

Dump = dict[str, list[list[str]]]


START = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)
"""Every case stores its units at fixed times (one second apart) and asks at a fixed time, so that two runs
score recency alike."""


def stamped(texts: list[dict[str, str]] | list[str]) -> list[dict[str, object]]:
    """observe_many items at fixed times."""
    items = [t if isinstance(t, dict) else {"text": t} for t in texts]
    return [{**item, "timestamp": START + dt.timedelta(seconds=i)} for i, item in enumerate(items)]


def bench_cases(sizes: list[int], n_queries: int) -> Dump:
    """Top-10 texts (the ids depend on the write time) on the latency benchmark's data: exact scan, then the
    default dense search."""
    out: Dump = {}
    qs = queries(n_queries)
    for n in sizes:
        store_only = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
        mem = Memory(embedder=HashingEmbedder(384), appraiser=None, affect_config=store_only)
        texts = stamped(sentences(n, seed=3))
        for pos in range(0, n, 5000):
            mem.observe_many(texts[pos : pos + 5000])
        mem.affect_config = AffectiveMemoryConfig()
        when = START + dt.timedelta(days=1)
        for mode in ("exact", "default"):
            mem.config.recall.ann = "exact" if mode == "exact" else "ivf"
            out[f"bench-{n}-{mode}"] = [[h.unit.content for h in mem.recall(q, k=10, now=when)] for q in qs]
        mem.close()
    return out


def fixture_case(embedder: object) -> list[list[str]]:
    """Top-5 ids of every fixture query in a default memory (appraisal and detection on)."""
    units, qs = fixture()
    mem = Memory(embedder=embedder)  # type: ignore[arg-type]
    mem.observe_many(stamped(units))
    when = START + dt.timedelta(days=1)
    found = [[h.unit.id for h in mem.recall(q.text, k=5, now=when)] for q in qs]
    mem.close()
    return found


def conflict_case(n_per_lang: int) -> list[list[str]]:
    """Top-5 ids for each generated conflict scenario, each in a fresh default memory."""
    start = START
    embedder = HashingEmbedder(384)
    found = []
    for sc in conflict_scenarios(n_per_lang=n_per_lang):
        mem = Memory(embedder=embedder)
        texts = [sc.old, *sc.distractors, sc.new]
        for i, text in enumerate(texts):
            mem.observe(text, timestamp=start + dt.timedelta(hours=i))
        when = start + dt.timedelta(hours=len(texts))
        found.append([h.unit.id for h in mem.recall(sc.query, k=5, now=when)])
        mem.close()
    return found


def overlap(a: list[list[str]], b: list[list[str]]) -> tuple[float, float]:
    """(share of identical lists, mean share of a's ids found in b's list of the same query)."""
    same = [x == y for x, y in zip(a, b, strict=True)]
    shared = [len(set(x) & set(y)) / max(len(x), 1) for x, y in zip(a, b, strict=True)]
    return float(np.mean(same)), float(np.mean(shared))


def sizes_arg(text: str) -> list[int]:
    """Parse --sizes: comma-separated positive unit counts."""
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}")
    return sizes


def dump(args: argparse.Namespace) -> None:
    out = bench_cases(args.sizes, args.queries)
    out["fixture-hash"] = fixture_case(HashingEmbedder(384))
    if args.e5:
        out["fixture-e5"] = fixture_case(E5Embedder())
    out["conflicts-hash"] = conflict_case(args.scenarios)
    Path(args.out).write_text(json.dumps(out))
    print(f"wrote {args.out}: " + ", ".join(f"{k} ({len(v)})" for k, v in out.items()))


def compare(args: argparse.Namespace) -> None:
    before, after = (json.loads(Path(p).read_text()) for p in (args.before, args.after))
    print("| case | queries | identical lists | recall@k vs before |")
    print("|---|---:|---:|---:|")
    for key in before:
        if key not in after:
            print(f"| {key} | missing in {args.after} | | |")
            continue
        same, shared = overlap(before[key], after[key])
        print(f"| {key} | {len(before[key])} | {same:.3f} | {shared:.3f} |")


def main(argv: list[str] | None = None) -> None:
    def options(d: argparse.ArgumentParser) -> None:
        d.add_argument(
            "--sizes",
            type=sizes_arg,
            default=[10_000, 100_000],
            help="comma-separated unit counts of the bench cases",
        )
        d.add_argument("--queries", type=int, default=300, help="queries per bench case")
        d.add_argument("--scenarios", type=int, default=60, help="conflict scenarios per language")
        d.add_argument(
            "--e5", action="store_true", help="also run the fixture with the e5-small embedder (slow)"
        )

    identity_main(
        __doc__, dump, compare, "write the recalled ids of every case to a JSON file", options, argv
    )


if __name__ == "__main__":
    main()
