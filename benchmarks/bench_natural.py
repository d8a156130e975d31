"""Natural fact updates: 40 everyday updates and 20 compatible pairs in English and Chinese, written once in plain
everyday wording (`benchmarks/data/natural_updates.json`) and never used to fit, tune or choose anything.

Same protocol as the conflict benchmark: a fresh default `Memory()` per item; the older fact, six unrelated facts,
the newer fact and six more, an hour apart, stored with `observe(text, timestamp=...)` only; the question is asked
an hour after the last fact. Measured: both facts in `recall(question, k=5)`, the newer ranked above the older,
the pair flagged in `brief(question, k=5)`; for compatible pairs, a conflict record between them or the older one
marked superseded (wrong). With 20 updates and 10 compatible pairs per language, one item is 5 or 10 points:
read the numbers as coarse.

A second set written the same way but later, `benchmarks/data/natural_dev.json` (other people, places and
wordings), is the one to look at and tune on: ``--data benchmarks/data/natural_dev.json`` (never written to the docs
section, which reports the untouched set).

Run: ``python -m benchmarks.bench_natural [--embedder hash] [--no-write] [--misses] [--data FILE]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._report import write_section
from psychoagent import Memory
from psychoagent.embed import get_embedder

DATA = Path(__file__).resolve().parent / "data" / "natural_updates.json"
START = dt.datetime(2026, 3, 2, 9, 0)


def run_item(item: dict[str, str], fillers: list[str], embedder: Any, rng: random.Random) -> dict[str, bool]:
    """Store one item in a fresh memory and measure recall, briefing and records."""
    pool = fillers[:]
    rng.shuffle(pool)
    texts = [item["old"], *pool[:6], item["new"], *pool[6:12]]
    mem = Memory(embedder=embedder)
    ids = [mem.observe(text, timestamp=START + dt.timedelta(hours=i)).id for i, text in enumerate(texts)]
    old_id, new_id = ids[0], ids[7]
    now = START + dt.timedelta(hours=len(texts) + 1)
    top = [r.unit.id for r in mem.recall(item["q"], k=5, now=now, rng=np.random.default_rng(0))]
    brief = mem.brief(item["q"], k=5, now=now, rng=np.random.default_rng(0))
    pair = {old_id, new_id}
    flagged = any({c.side_a, c.side_b} == pair for c in brief.conflicts)
    recorded = any({c.side_a, c.side_b} == pair for c in mem.conflicts(ids=[old_id]))
    old = mem.get(old_id)
    mem.close()
    return {
        "both": old_id in top and new_id in top,
        "newer_first": new_id in top and (old_id not in top or top.index(new_id) < top.index(old_id)),
        "flagged": flagged,
        "wrong": flagged or recorded or (old is not None and old.invalid_at is not None),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="e5", help="e5 (default) or hash")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md as is")
    parser.add_argument("--misses", action="store_true", help="also print the items that missed")
    parser.add_argument("--data", type=Path, default=DATA, help="the set to run (default: the untouched one)")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    embedder = get_embedder(args.embedder)
    rng = random.Random(7)
    rows: dict[tuple[str, str], list[tuple[dict[str, str], dict[str, bool]]]] = {}
    for kind in ("updates", "compatible"):
        for item in data[kind]:
            out = run_item(item, data["fillers"][item["lang"]], embedder, rng)
            rows.setdefault((kind, item["lang"]), []).append((item, out))
    lines = ["| language | updates | both in top 5 | newer first | flagged | compatible pairs | wrongly flagged |",
             "|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for lang in ("en", "zh", "all"):
        upd = [o for (k, lg), v in rows.items() if k == "updates" and lang in (lg, "all") for _, o in v]
        comp = [o for (k, lg), v in rows.items() if k == "compatible" and lang in (lg, "all") for _, o in v]

        def pct(outs: list[dict[str, bool]], key: str) -> str:
            return f"{100 * np.mean([o[key] for o in outs]):.0f} %"

        lines.append(f"| {lang} | {len(upd)} | {pct(upd, 'both')} | {pct(upd, 'newer_first')} | "
                     f"{pct(upd, 'flagged')} | {len(comp)} | {pct(comp, 'wrong')} |")  # fmt: skip
    table = "\n".join(lines)
    print(table)
    if args.misses:
        for (kind, _), v in sorted(rows.items()):
            for item, o in v:
                bad = o["wrong"] if kind == "compatible" else not (o["newer_first"] and o["flagged"])
                if bad:
                    print(kind, o, "|", item["old"], "->", item["new"])
    if not args.no_write and args.data.resolve() == DATA:
        body = (f"Embedder {args.embedder}. {__doc__.split(chr(10) * 2)[1]}\n\n{table}\n\nThe pair scorer is fitted "
                "and chosen on the conflict benchmark's generated scenarios; this set checks how far that carries "
                "to wording no template produced.")  # fmt: skip
        write_section("bench_natural", "Natural fact updates (never tuned on)", body)


if __name__ == "__main__":
    main()
