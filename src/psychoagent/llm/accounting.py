"""Token, latency and outcome accounting per purpose (appraisal, fusion, decision, reflection, ...)."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np

Outcome = Literal["ok", "repaired", "retried", "fallback", "error", "text"]
OUTCOMES: tuple[Outcome, ...] = ("ok", "repaired", "retried", "fallback", "error", "text")


@dataclass
class PurposeStats:
    """Counters of one purpose; latencies are kept whole so percentiles are exact."""

    calls: int = 0
    """Finished `structured`/`complete` calls."""
    requests: int = 0
    """Generations asked for (a repair round is another), served by the model or the cache."""
    cache_hits: int = 0
    """Requests served from the response cache."""
    prompt_tokens: int = 0
    """Prompt tokens of all requests, cached ones included."""
    reused_prompt_tokens: int = 0
    """Prompt tokens the model did not evaluate again (a prompt prefix it had kept)."""
    completion_tokens: int = 0
    """Generated tokens of all requests, cached ones included."""
    transport_retries: int = 0
    """Requests sent again after a timeout, 429 or 5xx."""
    latencies_s: list[float] = field(default_factory=list)
    """Wall-clock seconds of each call, repairs and retries included."""
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    """Calls per outcome (`OUTCOMES`: ok, repaired, retried, fallback, error, text)."""

    def add(self, other: PurposeStats) -> None:
        """Add another purpose's counters, latencies and outcomes to these (the total of a run)."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, list):
                mine.extend(theirs)
            elif isinstance(mine, dict):
                for key in OUTCOMES:
                    mine[key] += theirs[key]
            else:
                setattr(self, f.name, mine + theirs)

    def summary(self) -> dict[str, Any]:
        """Counters plus latency mean/p50/p95/max in seconds."""
        lat = np.asarray(self.latencies_s, dtype=float)
        return {
            "calls": self.calls,
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "reused_prompt_tokens": self.reused_prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "transport_retries": self.transport_retries,
            "outcomes": dict(self.outcomes),
            "latency_s": {
                "total": float(lat.sum()) if lat.size else 0.0,
                "mean": float(lat.mean()) if lat.size else 0.0,
                "p50": float(np.percentile(lat, 50)) if lat.size else 0.0,
                "p95": float(np.percentile(lat, 95)) if lat.size else 0.0,
                "max": float(lat.max()) if lat.size else 0.0,
            },
        }


class Usage:
    """Thread-safe accounting of one run: a call is one `structured`/`complete`, a request one generation."""

    FILENAME = "llm_usage.json"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_purpose: dict[str, PurposeStats] = defaultdict(PurposeStats)

    def request(
        self, purpose: str, prompt_tokens: int, completion_tokens: int, cached: bool, reused: int = 0
    ) -> None:
        """Count one generation (served by the model or the cache); `reused`: prompt tokens not evaluated again."""
        with self._lock:
            s = self._by_purpose[purpose]
            s.requests += 1
            s.cache_hits += int(cached)
            s.prompt_tokens += prompt_tokens
            s.reused_prompt_tokens += reused
            s.completion_tokens += completion_tokens

    def retry(self, purpose: str) -> None:
        """Count one transport retry (timeout, 429, 5xx)."""
        with self._lock:
            self._by_purpose[purpose].transport_retries += 1

    def call(self, purpose: str, outcome: Outcome, latency_s: float) -> None:
        """Count one finished call with its outcome and wall-clock latency."""
        with self._lock:
            s = self._by_purpose[purpose]
            s.calls += 1
            s.outcomes[outcome] += 1
            s.latencies_s.append(latency_s)

    def outcomes(self, purpose: str | None = None) -> dict[str, int]:
        """Outcome counts of one purpose, or summed over all."""
        with self._lock:
            stats = [self._by_purpose[purpose]] if purpose else list(self._by_purpose.values())
            return {o: sum(s.outcomes[o] for s in stats) for o in OUTCOMES}

    def to_dict(self) -> dict[str, Any]:
        """Per-purpose summaries plus a `total` entry."""
        with self._lock:
            items = {p: s for p, s in self._by_purpose.items()}
            total = PurposeStats()
            for s in items.values():
                total.add(s)
            return {"purposes": {p: s.summary() for p, s in sorted(items.items())}, "total": total.summary()}

    def write(self, run_dir: str | Path, extra: dict[str, Any] | None = None) -> Path:
        """Write the accounting (plus e.g. cache stats) to RUN_DIR/llm_usage.json and return its path."""
        path = Path(run_dir) / self.FILENAME
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_dict() | (extra or {})
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        return path


def usage_summary(usage: dict[str, Any]) -> dict[str, Any]:
    """Model calls, fallbacks, repairs and retries per purpose and in total from `Usage.to_dict()` (or
    llm_usage.json), with the share of calls that fell back: what a run's summary and metrics.json report."""

    def counts(stats: dict[str, Any]) -> dict[str, Any]:
        out = stats.get("outcomes") or {}
        calls = int(stats.get("calls") or 0)
        fallbacks = int(out.get("fallback", 0)) + int(out.get("error", 0))
        return {"calls": calls, "fallbacks": fallbacks, "repaired": int(out.get("repaired", 0)),
                "retried": int(out.get("retried", 0)), "transport_retries": int(stats.get("transport_retries") or 0),
                "fallback_share": fallbacks / calls if calls else 0.0}  # fmt: skip

    purposes = {p: counts(s) for p, s in (usage.get("purposes") or {}).items() if (s.get("calls") or 0) > 0}
    return {"model": usage.get("model"), **counts(usage.get("total") or {}), "purposes": purposes}
