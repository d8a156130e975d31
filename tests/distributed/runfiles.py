"""Comparing run and experiment folders file by file (bytes), for the sharded and Ray backends' tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

_STAMP = re.compile(rb"written \d{4}-\d\d-\d\d \d\d:\d\d UTC")
_COMMAND = re.compile(rb"<p>Command: <code>.*?</code></p>")


def different_files(a: Path, b: Path, experiment: bool = False) -> list[str]:
    """Relative paths that differ in bytes or exist on one side only. With `experiment`, experiment.json's
    `command` field and, in report.html, the command and the minute it was written are left out (the command
    line names the backend and the folder)."""
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()} | {
        p.relative_to(b) for p in b.rglob("*") if p.is_file()
    }
    out = []
    for name in sorted(names):
        x, y = a / name, b / name
        if not (x.is_file() and y.is_file()):
            out.append(str(name))
            continue
        if (
            name.suffix == ".parquet"
        ):  # the same rows and columns (a file's bytes also carry its writer's layout)
            import pyarrow.parquet as pq

            if not pq.read_table(x).equals(pq.read_table(y)):
                out.append(str(name))
            continue
        left, right = x.read_bytes(), y.read_bytes()
        if experiment and name.name == "experiment.json":
            dl, dr = json.loads(left), json.loads(right)
            dl.pop("command"), dr.pop("command")
            left, right = json.dumps(dl).encode(), json.dumps(dr).encode()
        elif experiment and name.name == "report.html":
            left, right = (_COMMAND.sub(b"", _STAMP.sub(b"", x)) for x in (left, right))
        if left != right:
            out.append(str(name))
    return out
