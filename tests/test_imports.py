"""Every module of the package imports on its own, first (no import cycle hidden by the usual import order)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psychoagent

SCRIPT = """
import importlib, sys
names = sys.argv[1:]
failed = []
for name in names:
    for loaded in [m for m in sys.modules if m == "psychoagent" or m.startswith("psychoagent.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:  # report every module that fails, not only the first
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print("\\n".join(failed))
"""


def test_every_module_imports_first() -> None:
    root = Path(psychoagent.__file__).parent
    names = sorted(
        ".".join(("psychoagent", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for p in root.rglob("*.py")
        if p.name != "__main__.py"
    )
    assert len(names) > 100
    out = subprocess.run([sys.executable, "-c", SCRIPT, *names], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == ""
