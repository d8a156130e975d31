"""What grows in the soak's server: bench_soak's clients against a `psychoagent serve` that, on each dump, writes
the size of every bounded in-process cache, glibc's malloc totals (live and freed-but-held) and, with
``--trace``, a tracemalloc snapshot, so resident-memory growth can be split into live objects, caches and
allocator retention.

Run from the repository root: ``python -m benchmarks.soak_memory --seconds 250 --dumps 60,120,180,240``
(``--read-only`` for recall and brief only); the dumps go to ``--out`` (one JSON per dump, compared at the end).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_service import _free_port, _stop, seed
from benchmarks.bench_soak import MIX, READ_ONLY, SoakLog, _client, _rss
from psychoagent.cli.service import SERVER_TEXT_CACHE


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                    "fsmblks", "uordblks", "fordblks", "keepcost")]  # fmt: skip


def cache_sizes() -> dict[str, Any]:
    """Entries and limit of every lru_cache and memory cache alive in this process, and malloc's totals (MiB)."""
    from psychoagent.embed.cache import EmbeddingCache
    from psychoagent.embed.hashing import _CrcCache

    found: dict[str, Any] = {}
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):
            info = obj.cache_info()
            name = f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"
            if info.currsize and name.startswith("psychoagent"):
                found[name] = [info.currsize, info.maxsize]
        elif isinstance(obj, _CrcCache):
            found[f"crc {id(obj)}"] = [len(obj), obj.limit]
        elif isinstance(obj, EmbeddingCache):
            found[f"embedding cache {id(obj)}"] = [len(obj._items), obj.capacity]
        elif type(obj).__name__ == "PairDecisions":
            found[f"pair decisions {id(obj)}"] = [len(obj), obj._size]
        elif type(obj).__name__ in ("TextVectors", "WordVectors", "MaskedVectors"):
            found[f"{type(obj).__name__} {id(obj)}"] = [len(obj.vectors), obj.limit]
    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
        mallinfo2.restype = _MallInfo2
        info = mallinfo2()
        found["malloc MiB (heap, mmap, live, freed but held)"] = [
            round(x / 2**20, 1) for x in (info.arena, info.hblkhd, info.uordblks, info.fordblks)
        ]
    except (OSError, AttributeError):
        pass
    try:  # SQLite's own allocations (page caches, statements), part of malloc's live memory
        used = ctypes.CDLL("libsqlite3.so.0").sqlite3_memory_used
        used.restype = ctypes.c_int64
        found["sqlite MiB"] = round(used() / 2**20, 1)
    except (OSError, AttributeError):
        pass
    if tracemalloc.is_tracing():
        found["traced MiB"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 1)
    return found


def _serve(out: Path, argv: list[str]) -> None:
    """Run `psychoagent serve argv`, writing a dump to `out` on each SIGUSR1."""
    dumps = [0]

    def dump(*_: object) -> None:
        gc.collect()
        n = dumps[0]
        dumps[0] += 1
        (out / f"sizes{n}.json").write_text(json.dumps(cache_sizes(), indent=0, sort_keys=True))
        if tracemalloc.is_tracing():
            tracemalloc.take_snapshot().dump(str(out / f"snap{n}.bin"))
        (out / f"done{n}").touch()

    signal.signal(signal.SIGUSR1, dump)
    from psychoagent.cli import main

    sys.argv = ["psychoagent", "serve", *argv]
    main()


def drive(args: argparse.Namespace) -> None:
    """Start the traced server, seed it, run the soak's clients and ask for a dump at each time of `args.dumps`."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    tmp, port = tempfile.mkdtemp(), _free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "benchmarks.soak_memory", "--serve", "--out", str(out), "--", "--db",
           f"{tmp}/soak.db", "--port", str(port), "--embedder", "hash"]  # fmt: skip
    # this module imports the analysis modules before `serve` could size their caches: size them as it would
    env = {**os.environ, "SOAK_TRACE": "1" if args.trace else ""}
    env.setdefault("PSYCHOAGENT_TEXT_CACHE", str(SERVER_TEXT_CACHE))
    proc = subprocess.Popen(cmd, env=env, stderr=(Path(tmp) / "log").open("wb"))
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    seed(url)
    mix, logs = READ_ONLY if args.read_only else MIX, [SoakLog() for _ in range(args.clients)]
    began = time.monotonic()
    threads = [threading.Thread(target=_client, args=(url, i, began, began + args.seconds, logs[i], mix))
               for i in range(args.clients)]  # fmt: skip
    for t in threads:
        t.start()
    times = [float(x) for x in args.dumps.split(",")] if args.dumps else []
    rss, files = [], []
    for n, at in enumerate(times):
        time.sleep(max(0.0, at - (time.monotonic() - began)))
        os.kill(proc.pid, signal.SIGUSR1)
        while not (out / f"done{n}").exists():
            time.sleep(0.2)
        rss.append(_rss(proc.pid))
        files.append(sum(f.stat().st_size for f in Path(tmp).glob("soak.db*")) / 2**20)
    for t in threads:
        t.join()
    _stop(proc)
    dumps = [json.loads((out / f"sizes{n}.json").read_text()) for n in range(len(times))]
    print(f"{sum(len(v) for log in logs for v in log.latencies.values()):,} requests, "
          f"{sum(sum(log.errors.values()) for log in logs)} errors")  # fmt: skip
    print("| at s | " + " | ".join(f"{at:.0f}" for at in times) + " |")
    print("|---|" + "---|" * len(times))
    print("| resident MiB | " + " | ".join(f"{r:.0f}" for r in rss) + " |")
    print("| SQLite file and WAL MiB | " + " | ".join(f"{f:.1f}" for f in files) + " |")
    for key in dumps[-1]:
        print(f"| {key} | " + " | ".join(str(d.get(key, "-")) for d in dumps) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=250.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--dumps", default="60,120,180,240", help="seconds after the start, comma-separated")
    parser.add_argument("--read-only", action="store_true")
    parser.add_argument("--trace", action="store_true", help="tracemalloc snapshots too (slow)")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "soak_memory"))
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.serve:
        if os.environ.get("SOAK_TRACE"):
            tracemalloc.start(6)
        _serve(Path(args.out), [a for a in rest if a != "--"])
    else:
        drive(args)


if __name__ == "__main__":
    main()
