"""LLM layer: pipeline overhead (offline model), SmolLM2 in process and via llama_cpp.server, cache-hit speed-up."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from benchmarks._report import write_section
from psychoagent.llm import CacheConfig, LLMClient, LLMConfig, OfflineBackend, Sampling, get_model

OFFLINE_CALLS = 2000
MODEL_CALLS = 6
MAX_TOKENS = 48


class Appraisal(BaseModel):
    """The shape of a typical appraisal answer."""

    label: str = Field(max_length=20)
    valence: int = Field(ge=-3, le=3)
    arousal: int = Field(ge=0, le=4)
    confidence: float = Field(ge=0.0, le=1.0)


FALLBACK = Appraisal(label="neutral", valence=0, arousal=0, confidence=0.0)
EVENTS = [
    "The shop raised bread prices by 20% this week.",
    "My salary was paid on time and I got a small bonus.",
    "The central bank cut the interest rate unexpectedly.",
    "A neighbour lost his job at the factory.",
    "Stock prices fell sharply after the news.",
    "The harvest was better than expected.",
]


def prompt(event: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You appraise how an event feels to a household."},
        {"role": "user", "content": f"Event: {event}"},
    ]


def ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q))


def timed_calls(model: LLMClient, prompts: list[list[dict[str, str]]]) -> list[float]:
    out = []
    for p in prompts:
        start = time.perf_counter()
        model.structured(p, Appraisal, purpose="appraisal", fallback=FALLBACK)
        out.append(time.perf_counter() - start)
    return out


def bench_offline() -> tuple[str, dict[str, float]]:
    """Full pipeline (instructions, cache lookup off, parse, validate, accounting) vs. bare validation."""
    answer = FALLBACK.model_dump_json()
    start = time.perf_counter()
    for _ in range(OFFLINE_CALLS):
        Appraisal.model_validate_json(answer)
    bare = (time.perf_counter() - start) / OFFLINE_CALLS
    model = LLMClient(OfflineBackend(rule=lambda m, s: answer), LLMConfig())
    lat = timed_calls(model, [prompt(EVENTS[i % len(EVENTS)]) for i in range(OFFLINE_CALLS)])
    start = time.perf_counter()
    model.structured_many([prompt(e) for e in EVENTS * (OFFLINE_CALLS // len(EVENTS))], Appraisal)
    batch_rate = (OFFLINE_CALLS // len(EVENTS) * len(EVENTS)) / (time.perf_counter() - start)
    rows = {
        "calls_s": len(lat) / sum(lat),
        "p50_ms": ms(lat, 50),
        "p95_ms": ms(lat, 95),
        "batch_s": batch_rate,
    }
    text = (
        f"| offline, sync `structured` | {OFFLINE_CALLS} | {rows['calls_s']:,.0f} calls/s | "
        f"p50 {rows['p50_ms']:.3f} ms, p95 {rows['p95_ms']:.3f} ms | bare `model_validate_json` "
        f"{bare * 1e6:.1f} µs/call |\n"
        f"| offline, async batch `structured_many` | {OFFLINE_CALLS // len(EVENTS) * len(EVENTS)} | "
        f"{batch_rate:,.0f} calls/s | | |\n"
    )
    return text, rows


def model_rows(label: str, model: LLMClient) -> str:
    """Warm-up call, then timed calls; tokens/s is completion tokens over wall time."""
    model.structured(prompt("warm-up"), Appraisal, purpose="warmup", fallback=FALLBACK)
    lat = timed_calls(model, [prompt(e) for e in EVENTS[:MODEL_CALLS]])
    stats = model.usage.to_dict()["purposes"]["appraisal"]
    tps = stats["completion_tokens"] / sum(lat)
    outcomes = ", ".join(f"{k} {v}" for k, v in stats["outcomes"].items() if v)
    return (
        f"| {label} ({model.structured_mode}) | {len(lat)} | {tps:.0f} tokens/s | "
        f"p50 {ms(lat, 50):.0f} ms, p95 {ms(lat, 95):.0f} ms | {outcomes} |\n"
    )


@contextmanager
def llama_server(path: str, threads: int) -> Iterator[str]:
    """`python -m llama_cpp.server` on a free loopback port, stopped on exit."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", path, "--host", "127.0.0.1",
           "--port", str(port), "--n_threads", str(threads), "--model_alias", "smollm2"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("llama_cpp.server did not start within 60 s")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def bench_cache(label: str, spec: str, tmp: Path) -> str:
    """Same calls twice against a read-write cache: model latency vs. cache-hit latency."""
    config = LLMConfig(
        sampling=Sampling(max_tokens=MAX_TOKENS), cache=CacheConfig(mode="read-write", path=str(tmp / "c.db"))
    )
    model = get_model(spec, config)
    model.structured(prompt("warm-up"), Appraisal, fallback=FALLBACK)
    prompts = [prompt(e) for e in EVENTS[:MODEL_CALLS]]
    miss = timed_calls(model, prompts)
    hit = timed_calls(model, prompts)
    assert model.cache is not None and model.cache.hits >= len(prompts)
    model.close()
    return (
        f"| {label} | {len(prompts)} | miss p50 {ms(miss, 50):.1f} ms | hit p50 {ms(hit, 50):.3f} ms | "
        f"**{np.median(miss) / np.median(hit):,.0f}x** |\n"
    )


def main() -> None:
    offline_text, offline = bench_offline()
    body = (
        "Structured calls with a 4-field object (`Appraisal`: bounded ints become enums). Pipeline overhead is\n"
        "measured with the offline model, whose answer is immediate: everything else is the layer's own cost.\n\n"
        "| path | calls | throughput | latency per call | notes |\n|---|---|---|---|---|\n" + offline_text
    )
    try:
        from psychoagent.llm.local import bundled_model_path

        path = str(bundled_model_path())
        import llama_cpp  # noqa: F401
    except Exception as exc:
        body += f"\nLocal model not measured: {exc}\n"
        write_section("bench_llm", "LLM layer", body)
        return
    small = LLMConfig(sampling=Sampling(max_tokens=MAX_TOKENS))
    local = get_model(f"local:{path}", small)
    threads = local.backend.n_threads  # type: ignore[attr-defined]
    body += model_rows("SmolLM2-135M in process, grammar", local)
    with llama_server(path, threads) as base:
        body += model_rows("SmolLM2-135M via llama_cpp.server", get_model(f"{base}#smollm2", small))
    with tempfile.TemporaryDirectory() as tmp:
        cache_rows = bench_cache("SmolLM2-135M in process", f"local:{path}", Path(tmp))
    body += (
        f"\nSmolLM2 rows: {threads} CPU thread(s) each, {MAX_TOKENS} max tokens, temperature 0, after one warm-up call; tokens/s counts completion "
        "tokens over wall time (prompt processing included). The server row starts with `json_schema`, gets HTTP "
        "500 and steps down to `json_object` with the schema, which it keeps.\n\n"
        "Cache hit vs. model call (SQLite cache, read-write mode, same requests twice):\n\n"
        "| model | calls | first pass | second pass | speed-up |\n|---|---|---|---|---|\n" + cache_rows
    )
    write_section("bench_llm", "LLM layer", body)
    print(body)
    print(json.dumps(offline))


if __name__ == "__main__":
    main()
