"""Memory benchmark: write throughput, recall latency at 10k/100k units, resident memory, retrieval quality.

Run from the repository root: ``python -m benchmarks.bench_memory`` (``--quick`` for a smaller run, ``--only
latency`` for one part, printed and not written).
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

import numpy as np

from benchmarks._report import publish
from benchmarks.retrieval_fixture import build
from psychoagent import Memory
from psychoagent.embed import E5Embedder, HashingEmbedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig, MemoryConfig, RecallConfig
from psychoagent.memory.index.ann import dense_top
from psychoagent.memory.recall.retrieve import default_pipeline, top_k

VOCAB = 20_000
ZIPF_S = 1.07
"""Word frequencies of natural text follow Zipf's law with exponent close to 1 (Piantadosi 2014)."""


def _zipf_words(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    p = 1.0 / np.arange(1, VOCAB + 1) ** ZIPF_S
    return rng.choice(VOCAB, size=shape, p=p / p.sum())


def rss_mib() -> float:
    """Resident set size of this process in MiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def sentences(n: int, seed: int = 0) -> list[str]:
    """Synthetic events of 14 words drawn from a 20k-word Zipfian vocabulary."""
    picks = _zipf_words(np.random.default_rng(seed), (n, 14))
    return [f"event {i}: " + " ".join(f"w{j}" for j in row) for i, row in enumerate(picks)]


def queries(n: int, seed: int = 99) -> list[str]:
    """Queries of 4 words from the same distribution (frequent words included, as in real queries)."""
    picks = _zipf_words(np.random.default_rng(seed), (n, 4))
    return [" ".join(f"w{j}" for j in row) for row in picks]


def write_rate(mem: Memory, texts: list[str], batch: int = 1000) -> float:
    """Units per second for observe_many in batches."""
    start = time.perf_counter()
    for pos in range(0, len(texts), batch):
        mem.observe_many(texts[pos : pos + batch])
    return len(texts) / (time.perf_counter() - start)


def latency(mem: Memory, queries: list[str], k: int = 10) -> tuple[float, float, float, float]:
    """p50 and p95 recall latency in ms, wall clock and CPU time of this thread.

    Recall runs on one thread, so on a quiet machine its wall time is about its CPU time; on a shared machine the
    CPU time is the steadier estimate of it (the wall time also counts waiting for a core)."""
    times, cpu = [], []
    for q in queries:
        start, start_cpu = time.perf_counter(), time.thread_time()
        mem.recall(q, k=k)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        times.append((time.perf_counter() - start) * 1000)
    return (float(np.percentile(times, 50)), float(np.percentile(times, 95)), float(np.percentile(cpu, 50)),
            float(np.percentile(cpu, 95)))  # fmt: skip


def ivf_agreement(mem: Memory, texts: list[str], k: int = 10) -> float:
    """Mean share of the exact dense top-k found in the IVF's top-k (recall@k vs exact): of the n rows the dense
    search returns when recall asks (n = RecallConfig.candidates), the k best by exact cosine, as recall sees them."""
    index, cfg = mem._index(), mem.config.recall
    n = max(cfg.candidates, k)
    shares = []
    for text in texts:
        q = mem.embedder.embed_queries([text])[0]
        exact = set(np.argsort(-index.similarities(q[None, :])[:, 0])[:k].tolist())
        found = dense_top(index, q, None, n, cfg)
        best = found[np.argsort(-(index.vector_rows(found) @ q))[:k]]
        shares.append(len(exact & set(best.tolist())) / k)
    return float(np.mean(shares))


def quality(
    embedder: object, dense_weight: float | None, fusion: str = "convex", signal: str = "coverage"
) -> dict[str, float]:
    """recall@5 of the retrieval core (no appraiser, no affect stages) on the fixture, overall and per kind."""
    units, queries = build()
    recall_cfg = RecallConfig(fusion=fusion, dense_weight=dense_weight, keyword_signal=signal,  # type: ignore[arg-type]
                              recency_weight=0.0, access_weight=0.0, track_access=False)  # fmt: skip
    mem = Memory(embedder=embedder, config=MemoryConfig(recall=recall_cfg), appraiser=None)  # type: ignore[arg-type]
    mem.pipeline = default_pipeline()
    mem.selector = lambda cands, index, ctx: top_k(cands, ctx.k)
    mem.observe_many(units)
    found: dict[str, list[bool]] = {}
    for q in queries:
        ids = [h.unit.id for h in mem.recall(q.text, k=5)]
        hit = q.relevant in ids
        for key in ("all", q.kind, q.lang):
            found.setdefault(key, []).append(hit)
    mem.close()
    return {key: float(np.mean(v)) for key, v in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k instead of 100k units; fewer queries")
    parser.add_argument("--only", choices=PARTS, help="run one part and print it (docs are not written)")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [10_000, 100_000]
    parts = [args.only] if args.only else list(PARTS)
    lines: list[str] = []
    if "writes" in parts:
        lines += writes()
    if "latency" in parts:
        lines += latencies(sizes, 100 if args.quick else 300)
    if "quality" in parts:
        lines += qualities()
    publish("bench_memory", "Memory store and hybrid recall", lines, write=not args.only)


PARTS = ("writes", "latency", "quality")


def writes() -> list[str]:
    """Write throughput of the store alone, with detection, with appraisal and detection, and with e5."""

    # -- write throughput ---------------------------------------------------------------------------------
    texts = sentences(20_000)
    store_only = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))  # no appraisal, no detection
    hash_rate = write_rate(
        Memory(embedder=HashingEmbedder(384), appraiser=None, affect_config=store_only), texts
    )
    # texts of their own: the analysis caches of one row must not serve the other
    detect_rate = write_rate(Memory(embedder=HashingEmbedder(384), appraiser=None), sentences(5_000, seed=5))
    appraised_rate = write_rate(Memory(embedder=HashingEmbedder(384)), sentences(5_000, seed=4))
    e5_texts = sentences(2_000, seed=1)
    e5_rate = write_rate(Memory(embedder=E5Embedder(), appraiser=None, affect_config=store_only), e5_texts)
    e5 = E5Embedder()
    start = time.perf_counter()
    e5.embed_documents(sentences(1_000, seed=2))
    e5_only = 1_000 / (time.perf_counter() - start)
    return [
        "### Write throughput (observe_many, batches of 1,000, in-memory SQLite)",
        "",
        "| embedder | units/s | ratio to store cost alone |",
        "|---|---:|---:|",
        f"| hash-384 (store cost alone: SQLite + FTS5 + index) | {hash_rate:,.0f} | 1.00 |",
        f"| hash-384 + default conflict detection, no appraisal | {detect_rate:,.0f} | "
        f"{detect_rate / hash_rate:.3f} |",
        f"| hash-384 + default heuristic appraisal and conflict detection | {appraised_rate:,.0f} | "
        f"{appraised_rate / hash_rate:.3f} |",
        f"| e5-small (default embedder), no appraisal, no detection | {e5_rate:,.0f} | {e5_rate / hash_rate:.3f} |",
        f"| e5-small embedding alone, no store | {e5_only:,.0f} | {e5_only / hash_rate:.3f} |",
        "",
        "Target for store cost alone: >= 5,000 units/s; with conflict detection (no appraisal): >= 1,000 units/s.",
        "",
    ]


def latencies(sizes: list[int], n_queries: int) -> list[str]:
    """Recall p50/p95 per size with the default dense search, and with the exact scan in the same process."""
    lines = ["### Recall latency (k=10, one namespace, 384-d vectors, hybrid dense + keyword, default pipeline incl. affect stage and MMR)", "",
             "Units are stored with conflict detection off (detection would only slow the set-up); recall runs with "
             "the default configuration, detection included. The exact row is the same memory with "
             "`ann=\"exact\"`, measured right after: on a shared machine the ratio is the comparable number. CPU "
             "columns: the thread CPU time of the same recalls (recall runs on one thread, so on a quiet machine the "
             "wall time is about the CPU time).", "",
             "| units | dense search | p50 ms | p95 ms | p95 / exact p95 | CPU p50 ms | CPU p95 ms | RSS after load MiB | first recall (builds the IVF index) s | IVF recall@10 vs exact |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    qs_text = queries(n_queries)
    store_only = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
    for n in sizes:
        gc.collect()
        base = rss_mib()
        mem = Memory(embedder=HashingEmbedder(384), appraiser=None, affect_config=store_only)
        write_rate(mem, sentences(n, seed=3), batch=5000)
        mem.affect_config = AffectiveMemoryConfig()
        start = time.perf_counter()
        mem.recall("warm up", k=10)
        first = time.perf_counter() - start
        p50, p95, cpu50, cpu95 = latency(mem, qs_text)
        rss = rss_mib() - base
        index = mem._index()
        label = f"IVF {index.ann.codec} (default)" if index.ann is not None else "exact (default below 20k)"
        agree = ivf_agreement(mem, qs_text) if index.ann is not None else float("nan")
        ratio, exact_row = "", ""
        if index.ann is not None:
            mem.config.recall.ann = "exact"
            ex50, ex95, excpu50, excpu95 = latency(mem, qs_text)
            mem.config.recall.ann = "ivf"
            ratio = f"{p95 / ex95:.2f}"
            exact_row = (
                f"| {n:,} | exact (same process) | {ex50:.1f} | {ex95:.1f} | 1.00 | {excpu50:.1f} | {excpu95:.1f} "
                "| | | 1 |"
            )
        lines.append(
            f"| {n:,} | {label} | {p50:.1f} | {p95:.1f} | {ratio} | {cpu50:.1f} | {cpu95:.1f} | {rss:,.0f} | "
            f"{first:.1f} | {agree:.3f} |"
        )
        if exact_row:
            lines.append(exact_row)
        mem.close()
        del mem
    e5 = E5Embedder()
    start = time.perf_counter()
    for q in qs_text[:100]:
        e5.embed_queries([q])
    e5_query_ms = (time.perf_counter() - start) * 10
    return [*lines, "", f"Query embedding with e5-small adds {e5_query_ms:.1f} ms per query (not included above). "
            "Target: p95 <= 5 ms at 100k units.", ""]  # fmt: skip


def qualities() -> list[str]:
    """recall@5 on the bilingual fixture per embedder and fusion method."""
    units, qs = build()
    lines = [
        f"### Retrieval quality: recall@5 on the bilingual fixture ({len(units)} units, {len(qs)} queries)",
        "",
        "Fixture: `benchmarks/retrieval_fixture.py` (paraphrase, value and keyword-heavy queries; hard distractors "
        "that share names and values).",
        "",
        "| embedder | method | all | paraphrase | value | keyword | exact | en | zh |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    methods = [("keyword only", 0.0, "convex", "coverage"), ("dense only", 1.0, "convex", "coverage"),
               ("hybrid: convex, coverage (default)", None, "convex", "coverage"),
               ("hybrid: convex, BM25", None, "convex", "bm25"), ("hybrid: RRF", None, "rrf", "coverage")]  # fmt: skip
    for emb_name, emb in (("e5-small", E5Embedder()), ("hash-256", HashingEmbedder(256))):
        for label, weight, fusion, signal in methods:
            q = quality(emb, weight, fusion, signal)
            lines.append(
                f"| {emb_name} | {label} | {q['all']:.3f} | {q['paraphrase']:.3f} | {q['value']:.3f} | "
                f"{q['keyword']:.3f} | {q['exact']:.3f} | {q['en']:.3f} | {q['zh']:.3f} |"
            )
    return [*lines, "", "Keyword only and dense only are the convex fusion with dense weight 0 and 1. The default "
            "dense weight is the embedder's calibrated one (e5-small 0.7, hash 0.5).", ""]  # fmt: skip


if __name__ == "__main__":
    main()
