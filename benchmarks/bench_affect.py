"""Affect benchmark: heuristic appraisal throughput, write and modulation overhead, and the conflict benchmark.

Run from the repository root: ``python -m benchmarks.bench_affect`` (``--quick`` for fewer scenarios,
``--embedder hash`` for the model-free embedder).
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from benchmarks._report import publish
from benchmarks.conflict_fixture import DISTRACTORS_EN, DISTRACTORS_ZH, TEMPLATES_EN, Scenario, build
from psychoagent import Affect, Memory
from psychoagent.affect import HeuristicAppraiser
from psychoagent.embed import get_embedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

EN_TEXTS = (
    "The user raised the budget from 1000 to 3000 yuan.", "Great news: the deployment succeeded!",
    "The payment failed and the customer is furious.", "Actually, I changed my mind: make the report detailed.",
    "The meeting with the supplier is on Friday.", "URGENT: the server crashed unexpectedly!",
)  # fmt: skip
ZH_TEXTS = (
    "用户把预算从1000元提高到3000元。", "今天真开心，项目成功了！", "任务失败了，客户非常生气。",
    "其实我不要了，改成简洁的回答。", "会议改到周五。", "紧急：服务器突然崩溃了！",
)  # fmt: skip
GOALS_EN = ["Keep the total budget under 2000 yuan", "Keep answers concise"]
GOALS_ZH = ["总预算控制在2000元以内", "回答要简洁"]
T0 = datetime(2024, 5, 1, tzinfo=UTC)
PLAIN = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))


def appraisal_rate(texts: tuple[str, ...], goals: list[str], n: int) -> float:
    """Texts per second for the heuristic appraiser (after one warm-up call per text)."""
    appraiser = HeuristicAppraiser()
    for t in texts:
        appraiser.appraise(t, goals)
    start = time.perf_counter()
    for i in range(n):
        appraiser.appraise(texts[i % len(texts)], goals)
    return n / (time.perf_counter() - start)


def _corpus(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    names = ("Alice", "Bob", "Carol", "David", "Emma")
    out = []
    for i in range(n):
        old, _, _ = TEMPLATES_EN[i % len(TEMPLATES_EN)]
        fill = {"ca": "Berlin", "da": "Monday", "ha": "Hilton", "o": "laptop"}
        out.append(old.format(n=f"{names[i % 5]}{i}", a=int(rng.integers(1, 90)) * 100, b=0, **fill))
        out.append(f"Day {i}: " + DISTRACTORS_EN[i % len(DISTRACTORS_EN)])
        out.append(f"第{i}天：" + DISTRACTORS_ZH[i % len(DISTRACTORS_ZH)])
    return out[:n]


def write_overhead(embedder: Any, n: int, repeats: int = 3) -> tuple[float, float]:
    """observe_many units/s (best of `repeats`, alternating, to resist load from other processes): no appraiser
    and no conflict detection vs the default (heuristic appraiser + conflict detection)."""
    texts = _corpus(n)
    best = [0.0, 0.0]
    for _ in range(repeats):
        for i, kwargs in enumerate(({"appraiser": None, "affect_config": PLAIN}, {})):
            mem = Memory(embedder=embedder, **kwargs)  # type: ignore[arg-type]
            mem.embed_documents(
                texts
            )  # embeddings cached: measure appraisal and bookkeeping, not the embedder
            start = time.perf_counter()
            for pos in range(0, n, 500):
                mem.observe_many(texts[pos : pos + 500])
            best[i] = max(best[i], n / (time.perf_counter() - start))
    return best[0], best[1]


def modulation_overhead(embedder: Any, n: int, queries: int) -> tuple[float, float]:
    """Median recall latency (ms) of plain hybrid recall vs conflict-first modulated recall on the same memory."""
    mem = Memory(embedder=embedder)
    mem.observe_many(_corpus(n))
    qs = [f"What is the budget of Alice{i}?" for i in range(queries)]
    state = Affect(valence=-1, arousal=2, conflict_intensity=3)
    mem.recall(qs[0], k=10)
    times: dict[str, list[float]] = {"plain": [], "modulated": []}
    for q in qs:
        for name, kwargs in (
            ("plain", {}),
            ("modulated", {"affect_state": state, "policy": "conflict-first"}),
        ):
            start = time.perf_counter()
            mem.recall(q, k=10, rng=np.random.default_rng(0), **kwargs)  # type: ignore[arg-type]
            times[name].append((time.perf_counter() - start) * 1000)
    return float(np.median(times["plain"])), float(np.median(times["modulated"]))


class SharedCache:
    """Wraps an embedder so every scenario's fresh Memory reuses embeddings computed once, in batches."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.docs: dict[str, np.ndarray] = {}
        self.queries: dict[str, np.ndarray] = {}

    def warm(self, docs: list[str], queries: list[str]) -> None:
        for store, texts, fn in ((self.docs, docs, self.inner.embed_documents),
                                 (self.queries, queries, self.inner.embed_queries)):  # fmt: skip
            todo = [t for t in dict.fromkeys(texts) if t not in store]
            for pos in range(0, len(todo), 64):
                chunk = todo[pos : pos + 64]
                store.update(zip(chunk, np.asarray(fn(chunk), dtype=np.float32), strict=True))

    def embed_documents(self, texts: Any) -> np.ndarray:
        self.warm(list(texts), [])
        return np.stack([self.docs[t] for t in texts])

    def embed_queries(self, texts: Any) -> np.ndarray:
        self.warm([], list(texts))
        return np.stack([self.queries[t] for t in texts])


def run_scenario(sc: Scenario, embedder: Any, aware: bool) -> tuple[bool, bool, bool]:
    """(both sides in top 5, newer ranked above stale, conflict flagged in the briefing)."""
    mem = (
        Memory(embedder=embedder) if aware else Memory(embedder=embedder, appraiser=None, affect_config=PLAIN)
    )
    old = mem.observe(sc.old, timestamp=T0)
    for i, text in enumerate(sc.distractors, 1):
        mem.observe(text, timestamp=T0 + timedelta(days=i))
    new = mem.observe(sc.new, timestamp=T0 + timedelta(days=len(sc.distractors) + 1))
    now = T0 + timedelta(days=len(sc.distractors) + 2)
    if aware:
        brief = mem.brief(sc.query, k=5, now=now, rng=np.random.default_rng(0))
        ids = [r.unit.id for r in brief.memories if "conflict_partner" not in r.parts][:5]
        flagged = any({c.side_a, c.side_b} == {old.id, new.id} for c in brief.conflicts)
    else:
        ids = [r.unit.id for r in mem.recall(sc.query, k=5, now=now)]
        flagged = False
    both = old.id in ids and new.id in ids
    newer_first = new.id in ids and (old.id not in ids or ids.index(new.id) < ids.index(old.id))
    return both, newer_first, flagged


def conflict_benchmark(embedder: Any, scenarios: list[Scenario]) -> dict[tuple[str, str, str], np.ndarray]:
    """Per (split, system, language): mean of (both in top 5, newer above stale, flagged)."""
    out: dict[tuple[str, str, str], np.ndarray] = {}
    results = {(id(s), system): run_scenario(s, embedder, system == "aware") for s in scenarios
               for system in ("plain", "aware")}  # fmt: skip
    for split in ("main", "heldout-a", "heldout-b"):
        for system in ("plain", "aware"):
            for lang in ("en", "zh", "all"):
                rows = [
                    results[(id(s), system)]
                    for s in scenarios
                    if s.split == split and lang in ("all", s.lang)
                ]
                if rows:
                    out[(split, system, lang)] = np.mean(np.array(rows, dtype=float), axis=0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="60 scenarios per language instead of 120")
    parser.add_argument("--embedder", default="e5", help="e5 (default) or hash")
    args = parser.parse_args()
    embedder = get_embedder(args.embedder)
    per_lang = 60 if args.quick else 120
    en_rate = appraisal_rate(EN_TEXTS, GOALS_EN, 3000)
    zh_rate = appraisal_rate(ZH_TEXTS, GOALS_ZH, 1000)
    base_w, full_w = write_overhead(get_embedder("hash"), 3000)
    plain_ms, mod_ms = modulation_overhead(get_embedder("hash"), 5000, 200)
    held = per_lang // 3
    scenarios = build(per_lang) + build(held, 11, split="heldout-a") + build(held, 13, split="heldout-b")
    embedder = SharedCache(embedder)
    embedder.warm(
        [t for s in scenarios for t in (s.old, s.new, *s.distractors)], [s.query for s in scenarios]
    )
    start = time.perf_counter()
    res = conflict_benchmark(embedder, scenarios)
    elapsed = time.perf_counter() - start
    lines = [
        "Heuristic appraisal (VADER + rules for English; rule lexicon for Chinese), with two goals:",
        "",
        "| measure | value |",
        "|---|---|",
        f"| English texts/s | {en_rate:,.0f} |",
        f"| Chinese texts/s | {zh_rate:,.0f} |",
        f"| observe_many units/s (best of 3), no appraiser, no conflict detection (hash, embeddings cached) | {base_w:,.0f} |",
        f"| observe_many units/s, default: heuristic appraiser + conflict detection | {full_w:,.0f} "
        f"(x{full_w / base_w:.2f}) |",
        f"| median recall latency, plain hybrid (5k units, hash, k=10) | {plain_ms:.2f} ms |",
        f"| median recall latency, conflict-first modulation + MMR + exploration | {mod_ms:.2f} ms (x{mod_ms / plain_ms:.2f}) |",
        "",
        f"Conflict benchmark: {len(scenarios)} generated scenarios (`benchmarks/conflict_fixture.py`; {per_lang} "
        f"English and {per_lang} Chinese with the main phrasings, {held} + {held} per held-out set). Each: an old "
        f"fact, {len(scenarios[0].distractors)} distractors (unrelated events, 3 hard negatives with the same "
        "phrasing for other people or objects, one other fact about the same person), a later contradicting fact, "
        f"then a question. Embedder `{embedder.name}` (embeddings computed once per text, in batches). Plain = "
        "hybrid recall without appraiser or conflict detection; conflict-aware = default `Memory` (heuristic "
        "appraiser, conflict records, superseding) and `brief(query, k=5)`.",
        "",
        "Phrasings: `main` was used to develop the slot rules. `heldout-a` was written after them; measured first "
        "(hash embedder) it was flagged in 12 % of scenarios, and the change-statement rule was then developed "
        "on its failures. `heldout-b` was written before that rule and never used for tuning: it is the honest "
        "estimate of how the rules generalise.",
        "",
        "| phrasings | system | language | (a) both sides in top 5 | (b) newer ranked above stale | "
        "(c) conflict flagged |",
        "|---|---|---|---|---|---|",
    ]
    for (split, system, lang), (a, b, c) in res.items():
        flagged = "n/a (no briefing)" if system == "plain" else f"{c:.1%}"
        name = "plain hybrid" if system == "plain" else "conflict-aware"
        lines.append(f"| {split} | {name} | {lang} | {a:.1%} | {b:.1%} | {flagged} |")
    lines += [
        "",
        f"Targets (heuristic appraiser): (a) >= 95 %, (b) >= 95 %, (c) >= 90 %. Scenario run: {elapsed:.0f} s.",
    ]
    publish("bench_affect", "Affect and conflicts", lines)


if __name__ == "__main__":
    main()
