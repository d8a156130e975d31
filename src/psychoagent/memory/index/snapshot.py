"""Index snapshots: a namespace's in-memory index written beside its SQLite file, so a large namespace opens
without rebuilding it.

Building the index of 1,000,000 units from the file took 79 s here (the vectors, keyword postings and
conversation facts from every row, then training the IVF index: docs/benchmarks.md); reading a snapshot of it
takes seconds. The SQLite file stays the source of truth: a snapshot is stamped with the store it came from, the
embedding model, the settings it was built with and the store's change counter, and is used only when all match;
what changed in the file since (the units stamped later) is then applied to it as another process's writes are.
A snapshot that is missing, stale or unreadable is skipped (logged and counted) and the index is built from the
file. The file holds plain arrays after a JSON header (no pickle: opening it runs no code), each read straight
into its buffer (a 2 GB ``.npz`` took 6 s to read through its zip layer).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from psychoagent.memory.index.namespace import NamespaceIndex

log = logging.getLogger(__name__)

FORMAT = 1
"""Version of the snapshot layout; a snapshot of another version is rebuilt."""
MAGIC = b"PSYIDX01"
"""First bytes of a snapshot file."""
ALIGN = 64
"""Every array starts at a multiple of this many bytes."""
STATS: Counter[str] = Counter()
"""Snapshots loaded, written, and skipped by reason (missing, stale, unreadable), for this process."""


def directory(store: Any) -> Path | None:
    """Where a store keeps index snapshots (`MemoryStore.snapshot_folder`: ``<file>.index/`` beside a SQLite
    file); None where it keeps none (an in-memory database, PostgreSQL)."""
    folder = getattr(store, "snapshot_folder", None)
    return folder() if callable(folder) else None


def file_for(folder: Path, namespace: str) -> Path:
    """The snapshot file of one namespace (named by a hash: a namespace may hold any character)."""
    return folder / (hashlib.blake2b(namespace.encode(), digest_size=12).hexdigest() + ".idx")


def save(path: Path, index: NamespaceIndex, stamp: dict[str, Any]) -> None:
    """Write the index with its stamp atomically (a temporary file renamed over the old snapshot)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {key: np.ascontiguousarray(value) for key, value in index.to_arrays().items()}
    fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            _write(out, arrays, stamp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    STATS["written"] += 1


def _write(out: BinaryIO, arrays: dict[str, np.ndarray], stamp: dict[str, Any]) -> None:
    """MAGIC, the header's length, the header (stamp, and each array's dtype, shape and offset) as JSON, then
    the arrays' bytes, each at an offset aligned to `ALIGN`."""
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    for key, value in arrays.items():
        layout[key] = {"dtype": value.dtype.str, "shape": list(value.shape), "offset": offset}
        offset += -(-value.nbytes // ALIGN) * ALIGN
    header = json.dumps({"stamp": stamp, "arrays": layout}, sort_keys=True).encode()
    start = -(-(len(MAGIC) + 8 + len(header)) // ALIGN) * ALIGN
    out.write(MAGIC + len(header).to_bytes(8, "little") + header)
    out.write(b"\0" * (start - len(MAGIC) - 8 - len(header)))
    for value in arrays.values():
        value.reshape(-1).view(np.uint8).tofile(out)
        out.write(b"\0" * (-(-value.nbytes // ALIGN) * ALIGN - value.nbytes))


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(stamp, arrays) of a snapshot file, each array read straight into its own buffer."""
    with path.open("rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError("not an index snapshot")
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size).decode())
        start = -(-(len(MAGIC) + 8 + size) // ALIGN) * ALIGN
        arrays = {}
        for key, spec in header["arrays"].items():
            dtype, shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
            if dtype.hasobject:
                raise ValueError(f"array {key!r} holds objects")
            count = int(np.prod(shape))
            f.seek(start + int(spec["offset"]))
            value = np.fromfile(f, dtype=dtype, count=count)
            if len(value) != count:
                raise ValueError(f"array {key!r} is cut short")
            arrays[key] = value.reshape(shape)
    return header["stamp"], arrays


def load(path: Path, expected: dict[str, Any], counter: int) -> tuple[NamespaceIndex, int] | None:
    """(index, change counter it reflects) from a snapshot whose stamp matches `expected` and whose counter is
    not ahead of the store's `counter`; None (counted and logged) otherwise."""
    if not path.exists():
        STATS["missing"] += 1
        return None
    try:
        stamp, arrays = _read(path)
        seen = int(stamp.pop("counter", -1))
        if stamp != expected or not 0 <= seen <= counter:
            STATS["stale"] += 1
            log.info("index snapshot %s does not match the file (%s): building the index", path, stamp)
            return None
        index = NamespaceIndex.from_arrays(arrays)
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError, RuntimeError) as exc:
        STATS["unreadable"] += 1
        log.warning("index snapshot %s cannot be read (%s): building the index from the file", path, exc)
        return None
    STATS["loaded"] += 1
    return index, seen
