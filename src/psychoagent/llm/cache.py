"""SQLite response cache keyed by model + messages + schema + sampling, with record and replay modes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from psychoagent.llm.config import CacheMode
from psychoagent.llm.contracts import CacheMissError, Completion, Request

_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL
)
"""


def cache_key(model: str, request: Request) -> str:
    """Stable hash of everything that determines the answer; the wire mode is left out on purpose.

    The wire mode is how a server is asked, not what is asked: a run recorded against llama.cpp (json_object)
    replays against a cache built from the same request sent elsewhere. The endpoint URL is left out too, so a
    recording made against one host replays for the same model served from another.
    """
    payload = {
        "model": model,
        "messages": list(request.messages),
        "schema": request.schema,
        "sampling": request.sampling.model_dump(),
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Thread-safe cache of raw completions; parsing and validation run again on a hit, so replay is exact."""

    def __init__(self, path: str | Path, mode: CacheMode = "read-write") -> None:
        if mode == "off":
            raise ValueError("ResponseCache: mode 'off' means no cache; pass cache=None instead")
        self.path = str(path)
        self.mode: CacheMode = mode
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self._lock = threading.Lock()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.execute(_SCHEMA)

    @property
    def reads(self) -> bool:
        """Whether lookups are served (read-write and replay)."""
        return self.mode in ("read-write", "replay")

    @property
    def writes_enabled(self) -> bool:
        """Whether fresh completions are stored (read-write and record)."""
        return self.mode in ("read-write", "record")

    def get(self, model: str, request: Request, purpose: str = "general") -> Completion | None:
        """The recorded completion, or None; in replay mode a miss raises `CacheMissError`."""
        if not self.reads:
            return None
        key = cache_key(model, request)
        with self._lock:
            row = self._conn.execute(
                "SELECT text, prompt_tokens, completion_tokens FROM llm_responses WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                self.misses += 1
            else:
                self.hits += 1
        if row is None:
            if self.mode == "replay":
                last = request.messages[-1]["content"]
                raise CacheMissError(
                    f"replay: no recorded response in {self.path} for model {model!r}, purpose {purpose!r}, "
                    f"key {key[:16]}, last message {last[:120]!r}. The run asks something the recorded run "
                    "did not (different inputs, seed, prompts or sampling); record it again with mode 'record'."
                )
            return None
        return Completion(
            text=row[0], prompt_tokens=row[1], completion_tokens=row[2], model=model, cached=True
        )

    def put(self, model: str, request: Request, completion: Completion) -> None:
        """Store a fresh completion (record overwrites, read-write keeps the first)."""
        if not self.writes_enabled:
            return
        key = cache_key(model, request)
        verb = "INSERT OR REPLACE" if self.mode == "record" else "INSERT OR IGNORE"
        blob = json.dumps(
            {
                "messages": list(request.messages),
                "schema": request.schema,
                "sampling": request.sampling.model_dump(),
            },
            ensure_ascii=False,
        )
        with self._lock:
            self._conn.execute(
                f"{verb} INTO llm_responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    blob,
                    completion.text,
                    completion.prompt_tokens,
                    completion.completion_tokens,
                    time.time(),
                ),
            )
            self.writes += 1

    def stats(self) -> dict[str, Any]:
        """Hit/miss counts and the hit rate of lookups made so far."""
        total = self.hits + self.misses
        return {
            "mode": self.mode,
            "path": self.path,
            "hits": self.hits,
            "misses": self.misses,
            "writes": self.writes,
            "hit_rate": self.hits / total if total else 0.0,
        }

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM llm_responses").fetchone()[0])

    def close(self) -> None:
        """Close the SQLite connection."""
        with self._lock:
            self._conn.close()
