"""One helper thread that runs a large namespace's dense search while the caller runs its keyword search.

Both release the GIL for most of their work (faiss's scan, numpy's array passes): at a million units the two took
3.8 and 5.7 ms one after the other (docs/benchmarks.md). Results are those of running them in turn.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

_T = TypeVar("_T")
_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def in_background(work: Callable[[], _T]) -> Future[_T]:
    """Start `work` on the helper thread (one per process: a forked child starts its own)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="psychoagent-dense"))
        return _pool[1].submit(work)
