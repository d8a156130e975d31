"""One SQLite store shared by threads (as the service shares it): reads never leave a statement stepping on the
connection, so a concurrent forget (secure delete, keyword-index merge, WAL truncation) is never refused."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from psychoagent import Memory

WORDS = "budget rent Paris London jazz coffee train salary bonus market steel price wage".split()


def test_forget_and_observe_succeed_while_threads_search_the_keyword_index(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db", embedder="hash")
    mem.observe_many(
        [" ".join(WORDS[(i + j) % len(WORDS)] for j in range(6)) + f" item{i}" for i in range(200)]
    )
    errors: list[str] = []
    done = threading.Event()
    reads = [0]

    def reader() -> None:
        n = 0
        while not done.is_set():
            try:
                mem.store.search_keywords("default", [WORDS[n % len(WORDS)], WORDS[(n * 7) % len(WORDS)]], 50)
            except Exception as exc:  # any error is the failure under test
                errors.append(repr(exc))
                return
            n += 1
            reads[0] += 1

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    forgotten = 0
    deadline = time.monotonic() + 20
    try:
        while forgotten < 10 and time.monotonic() < deadline and not errors:
            unit = mem.observe(f"{WORDS[forgotten % len(WORDS)]} note {forgotten}")
            mem.forget(unit.id)
            forgotten += 1
    finally:
        done.set()
        for t in threads:
            t.join()
    assert not errors, errors[:3]
    assert forgotten == 10 and reads[0] > 0
    assert mem.store.count("default") == 210
