"""Conflict benchmark on generated scenarios that can fail the system (`benchmarks/conflict_gen`).

Each scenario gets a fresh default `Memory()`: the old fact, six distractors, the new fact and six more are stored
with `observe(text, timestamp=...)` only (no `supersede`, no goals); then the question is asked one hour after the
last fact. Measured: newer fact ranked above the older in `recall(question, k=5)`; the pair flagged in
`brief(question, k=5)` (a conflict record whose sides are the two facts); for compatible pairs, a conflict record
between them in the briefing or the store, or the older one marked superseded (all wrong). Dev and test are reported separately
(test = held-out phrasing families or held-out domains), English and Chinese separately, by family and domain.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import pickle
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._report import write_section
from benchmarks.conflict_gen import (
    COMPATIBLE,
    CONTRADICTION,
    DOMAINS,
    HELD_OUT_DOMAINS,
    HELD_OUT_FAMILIES,
    UPDATE,
    Item,
    generate,
    split,
)
from psychoagent import Memory
from psychoagent.embed import get_embedder
from psychoagent.memory.config import AffectiveMemoryConfig

TARGETS = {"newer_first": 0.95, "flagged": 0.90, "false_flag": 0.05}
BATCH = 64


class SharedCache:
    """Wraps an embedder so that every scenario's fresh Memory reuses vectors computed once, in batches.

    Attributes the memory reads from its embedder (name, dim, similarity_floor, dense_weight) are forwarded.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.docs: dict[str, np.ndarray] = {}
        self.queries: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def load(self, path: Path) -> int:
        """Reuse vectors saved by an earlier run of the same embedder (a local file this script wrote)."""
        if not path.exists():
            return 0
        with path.open("rb") as fh:
            saved = pickle.load(fh)
        if saved.get("embedder") != self.inner.name:
            return 0
        self.docs.update(saved["docs"])
        self.queries.update(saved["queries"])
        return len(saved["docs"]) + len(saved["queries"])

    def save(self, path: Path) -> None:
        """Keep the vectors for the next run."""
        with path.open("wb") as fh:
            pickle.dump({"embedder": self.inner.name, "docs": self.docs, "queries": self.queries}, fh)

    def warm(self, docs: Iterable[str], queries: Iterable[str]) -> None:
        """Embed every text not seen yet, in batches."""
        for store, texts, fn in ((self.docs, docs, self.inner.embed_documents),
                                 (self.queries, queries, self.inner.embed_queries)):  # fmt: skip
            todo = [t for t in dict.fromkeys(texts) if t not in store]
            for pos in range(0, len(todo), BATCH):
                chunk = todo[pos : pos + BATCH]
                store.update(zip(chunk, np.asarray(fn(chunk), dtype=np.float32), strict=True))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.warm(texts, ())
        return np.stack([self.docs[t] for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.warm((), texts)
        return np.stack([self.queries[t] for t in texts])


@dataclass
class Outcome:
    """What happened to one scenario."""

    id: str
    lang: str
    domain: str
    family: str
    label: str
    split: str
    both_in_top5: bool  # both facts among the 5 recalled
    newer_first: bool  # new fact recalled, and above the old one when both are
    flagged: bool  # a conflict record with exactly these two sides in the briefing
    recorded: bool  # such a record stored at all
    old_superseded: bool  # the older unit got an invalid_at


def _ts(stamp: str) -> dt.datetime:
    """Parse the generator's ISO timestamps (trailing Z)."""
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def run_item(item: Item, embedder: Any, part: str, make: Callable[..., Memory] = Memory) -> Outcome:
    """Store one scenario in a fresh memory and measure recall, briefing and records."""
    mem = make(embedder=embedder)
    ids: list[str] = []
    for text, stamp in item.timeline():
        ids.append(mem.observe(text, timestamp=stamp).id)
    old_id, new_id = ids[0], ids[1 + len(item.distractors_before)]
    now = _ts(item.t_after[-1]) + dt.timedelta(hours=1)
    top = [r.unit.id for r in mem.recall(item.question, k=5, now=now, rng=np.random.default_rng(0))]
    brief = mem.brief(item.question, k=5, now=now, rng=np.random.default_rng(0))
    pair = {old_id, new_id}
    flagged = any({c.side_a, c.side_b} == pair for c in brief.conflicts)
    recorded = any({c.side_a, c.side_b} == pair for c in mem.conflicts(ids=[old_id]))
    old = mem.get(old_id)
    newer_first = new_id in top and (old_id not in top or top.index(new_id) < top.index(old_id))
    out = Outcome(
        id=item.id, lang=item.lang, domain=item.domain, family=item.family, label=item.label, split=part,
        both_in_top5=old_id in top and new_id in top, newer_first=newer_first, flagged=flagged, recorded=recorded,
        old_superseded=old is not None and old.invalid_at is not None,
    )  # fmt: skip
    mem.close()
    return out


def rates(rows: list[Outcome]) -> dict[str, float | int]:
    """Headline rates of a group: updates (newer first, flagged), contradictions (flagged, both current),
    compatible pairs (wrongly flagged: a record between them, in the briefing or stored, or the older superseded)."""
    upd = [r for r in rows if r.label == "update"]
    con = [r for r in rows if r.label == "contradiction"]
    comp = [r for r in rows if r.label in ("elaboration", "unrelated")]

    def mean(xs: list[bool]) -> float:
        return float(np.mean(xs)) if xs else float("nan")

    return {
        "n_update": len(upd), "n_contradiction": len(con), "n_compatible": len(comp),
        "newer_first": mean([r.newer_first for r in upd]),
        "flagged_update": mean([r.flagged for r in upd]),
        "flagged_contradiction": mean([r.flagged for r in con]),
        "contradiction_both_current": mean([not r.old_superseded for r in con]),
        "flagged": mean([r.flagged for r in upd + con]),
        "false_flag": mean([r.flagged or r.recorded or r.old_superseded for r in comp]),
        "both_in_top5": mean([r.both_in_top5 for r in upd + con]),
    }  # fmt: skip


def pct(x: float | int) -> str:
    """A rate as a percentage; a dash where the group had no scenario of that kind."""
    return "–" if x != x else f"{x:.1%}"  # NaN -> dash


def headline_table(outcomes: list[Outcome]) -> str:
    """One row per split and language (and both languages together)."""
    head = (
        "| split | language | updates | newer first | update flagged | contradictions | contradiction flagged | "
        "both current | conflicts flagged (all) | compatible | compatible wrongly flagged |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for part in ("dev", "test"):
        for lang in ("en", "zh", "all"):
            rows = [o for o in outcomes if o.split == part and lang in ("all", o.lang)]
            if not rows:
                continue
            r = rates(rows)
            lines.append(
                f"| {part} | {lang} | {r['n_update']} | {pct(r['newer_first'])} | {pct(r['flagged_update'])} | "
                f"{r['n_contradiction']} | {pct(r['flagged_contradiction'])} | "
                f"{pct(r['contradiction_both_current'])} | {pct(r['flagged'])} | {r['n_compatible']} | "
                f"{pct(r['false_flag'])} |"
            )
    return head + "\n".join(lines)


def breakdown_table(outcomes: list[Outcome], key: str, held: frozenset[str]) -> str:
    """One row per family or domain: newer first / flagged for changes, wrongly flagged for compatible pairs,
    English and Chinese side by side; held-out ones (test only) are marked."""
    head = (
        f"| {key} | n | newer first en / zh | flagged en / zh | compatible wrongly flagged en / zh |\n"
        "|---|---|---|---|---|\n"
    )
    lines = []
    for name in sorted({getattr(o, key) for o in outcomes}):
        rows = [o for o in outcomes if getattr(o, key) == name]
        en, zh = rates([o for o in rows if o.lang == "en"]), rates([o for o in rows if o.lang == "zh"])
        mark = " (held out)" if name in held else ""
        lines.append(
            f"| {name}{mark} | {len(rows)} | {pct(en['newer_first'])} / {pct(zh['newer_first'])} | "
            f"{pct(en['flagged'])} / {pct(zh['flagged'])} | {pct(en['false_flag'])} / {pct(zh['false_flag'])} |"
        )
    return head + "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Generate, embed once, run every scenario, print the report and write it into docs/benchmarks.md."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--embedder", default="e5", help="e5 (default) or hash (fast, no model)")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--limit", type=int, default=0, help="every n-th scenario only (quick runs; not written)")
    ap.add_argument("--details", type=Path, help="write one JSON line per scenario outcome here")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    ap.add_argument("--cache", type=Path, help="file to load and save embeddings across runs (speeds reruns)")
    ap.add_argument(
        "--no-second-stage",
        action="store_true",
        help="conflicts.second_stage off: the first stage alone (not written)",
    )
    args = ap.parse_args(argv)
    make: Callable[..., Memory] = Memory
    if args.no_second_stage:
        config = AffectiveMemoryConfig()
        config.conflicts.second_stage = False
        make = partial(Memory, affect_config=config)

    items = generate(args.seed)
    dev, test = split(items)
    parts = {"dev": dev, "test": test}
    chosen = [(p, i) for p in ("dev", "test") if args.split in ("all", p) for i in parts[p]]
    if args.limit > 1:
        chosen = chosen[:: args.limit]
    embedder = SharedCache(get_embedder(args.embedder))
    reused = embedder.load(args.cache) if args.cache else 0
    start = time.perf_counter()
    embedder.warm((t for _, i in chosen for t, _ in i.timeline()), (i.question for _, i in chosen))
    embed_s = time.perf_counter() - start
    if args.cache:
        embedder.save(args.cache)
    warmed = len(embedder.docs)
    outcomes = []
    for n, (part, item) in enumerate(chosen, 1):
        outcomes.append(run_item(item, embedder, part, make))
        if n % 500 == 0:
            print(f"{n}/{len(chosen)} scenarios, {time.perf_counter() - start:.0f} s", flush=True)
    total_s = time.perf_counter() - start
    written = (
        len(embedder.docs) - warmed
    )  # texts only the write path embeds (rebuilt corrections, masked sentences)
    if args.cache and written:
        embedder.save(args.cache)
    if args.details:
        args.details.write_text("".join(json.dumps(asdict(o)) + "\n" for o in outcomes), encoding="utf-8")

    timing = f"Embedding {embed_s:.0f} s" + (f" ({reused} vectors reused from `--cache`)" if reused else "")
    timing += f", {written} texts embedded by the write path itself" if written else ""
    body = report(outcomes, args, embedder.inner.name, f"{timing}, total {total_s:.0f} s")
    print(body)
    if not args.no_write and args.limit <= 1 and args.split == "all" and not args.no_second_stage:
        write_section(
            "bench_conflicts", "Conflicts on generated scenarios (dev / held-out test)", body, level=3,
            after="bench_affect",
        )  # fmt: skip


def report(outcomes: list[Outcome], args: argparse.Namespace, embedder: str, timing: str) -> str:
    """The markdown section: what was run, the headline by split and language, then by family and domain."""
    n_dev = sum(o.split == "dev" for o in outcomes)
    test = [o for o in outcomes if o.split == "test"]
    r = rates(test) if test else {}
    verdict = (
        ", ".join(
            f"{name} {pct(float(r[key]))} ({'meets' if ok else 'misses'} {op} {TARGETS[t]:.0%})"
            for name, key, t, op, ok in (
                ("newer first", "newer_first", "newer_first", ">=", r["newer_first"] >= TARGETS["newer_first"]),
                ("flagged", "flagged", "flagged", ">=", r["flagged"] >= TARGETS["flagged"]),
                ("compatible wrongly flagged", "false_flag", "false_flag", "<=",
                 r["false_flag"] <= TARGETS["false_flag"]),
            )
        )
        if test
        else "no test scenarios run"
    )  # fmt: skip
    return f"""
{len(outcomes)} scenarios from `benchmarks/conflict_gen` (seed {args.seed}; {n_dev} dev, {len(test)} test), English and Chinese, {len(DOMAINS)} domains, {len(UPDATE)} update families, {len(CONTRADICTION)} contradiction families,
{len(COMPATIBLE)} compatible families. Test = a held-out
phrasing family ({", ".join(sorted(HELD_OUT_FAMILIES))}) or a held-out domain ({", ".join(sorted(HELD_OUT_DOMAINS))});
tune on dev only. Per scenario a fresh default `Memory(embedder={embedder!r})`: old fact, 6 distractors from other
domains, new fact, 6 more, all with `observe(text, timestamp=...)`; the question is asked one hour after the last
fact. *Newer first*: `recall(question, k=5)` returns the new fact, above the old one if both. *Flagged*:
`brief(question, k=5).conflicts` holds a record whose sides are the two facts. *Compatible wrongly flagged*: a record
between the two facts in the briefing or the store, or the older one marked superseded. *Both current*: a contradiction did not
supersede the older side. {timing}.

**Test split against the targets:** {verdict}.

{headline_table(outcomes)}

By phrasing family (dev and test together; held-out families are test only):

{breakdown_table(outcomes, "family", HELD_OUT_FAMILIES)}

By domain (dev and test together; held-out domains are test only):

{breakdown_table(outcomes, "domain", HELD_OUT_DOMAINS)}
"""


if __name__ == "__main__":
    main()
