"""Comparing run and experiment folders file by file (bytes), for the sharded and Ray backends' tests."""

from __future__ import annotations

import json
from pathlib import Path


def different_files(a: Path, b: Path, ignore_command: str = "") -> list[str]:
    """Relative paths that differ in bytes or exist on one side only. With `ignore_command`, experiment.json's
    `command` field and that text in report.html are left out (the command line names the backend)."""
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()} | {
        p.relative_to(b) for p in b.rglob("*") if p.is_file()
    }
    out = []
    for name in sorted(names):
        x, y = a / name, b / name
        if not (x.is_file() and y.is_file()):
            out.append(str(name))
            continue
        left, right = x.read_bytes(), y.read_bytes()
        if ignore_command and name.name == "experiment.json":
            dl, dr = json.loads(left), json.loads(right)
            dl.pop("command"), dr.pop("command")
            left, right = json.dumps(dl).encode(), json.dumps(dr).encode()
        elif ignore_command and name.name == "report.html":
            right = right.replace(ignore_command.encode(), b"")
        if left != right:
            out.append(str(name))
    return out
