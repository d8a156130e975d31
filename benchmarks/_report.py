"""Write one benchmark's section of docs/benchmarks.md, replacing the previous result of the same benchmark."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
from collections.abc import Sequence
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADER = (
    "# Benchmarks\n\n"
    "Each section is written by the script named in it (`python -m benchmarks.NAME`); rerun the script to refresh.\n"
    "Speed is reported as ratios against a baseline measured in the same run where one exists.\n"
)


def machine() -> str:
    """A one-line description of the machine the numbers come from."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kib / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    load = f", load average {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else ""
    return f"{os.cpu_count()} cores ({cpu}){mem}, Python {platform.python_version()}{load}"


def write_section(name: str, title: str, body: str, *, level: int = 2, after: str | None = None,
                  doc: Path = DOC) -> None:  # fmt: skip
    """Replace (or append) the section `name` of `doc` (docs/benchmarks.md) with `body`, stamped with machine and
    date.

    `level` 3 makes it a subsection; a new section goes right after the section named `after` when that exists.
    """
    doc.parent.mkdir(parents=True, exist_ok=True)
    text = doc.read_text(encoding="utf-8") if doc.exists() else HEADER
    stamp = (
        f"_Measured {_dt.date.today().isoformat()} on {machine()}; command: `python -m benchmarks.{name}`._"
    )
    section = (
        f"<!-- bench:{name} -->\n{'#' * level} {title}\n\n{stamp}\n\n{body.strip()}\n<!-- /bench:{name} -->"
    )
    pattern = re.compile(rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->", re.S)
    anchor = f"<!-- /bench:{after} -->" if after else None
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    elif anchor and anchor in text:
        text = text.replace(anchor, anchor + "\n\n" + section, 1)
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    doc.write_text(text, encoding="utf-8")


def publish(
    name: str, title: str, lines: Sequence[str], *, write: bool = True, after: str | None = None
) -> str:
    """Print a benchmark's result lines and, with `write`, make them its section of docs/benchmarks.md (see
    `write_section`); returns the text."""
    body = "\n".join(lines)
    print(body)
    if write:
        write_section(name, title, body, after=after)
    return body
