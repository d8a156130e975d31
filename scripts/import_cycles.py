"""Report import cycles among psychoagent's modules, counting every import (also in functions and TYPE_CHECKING).

`from pkg import name` counts as an import of `pkg.name` when that is a module, else of `pkg`; the implicit import of
a parent package's `__init__` is not counted. Exit code 1 when a cycle exists.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "src" / "psychoagent"


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its __init__)."""
    names = {}
    for path in root.rglob("*.py"):
        parts = ("psychoagent", *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules `module` imports anywhere in its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, path, node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
    return {name for name in found if name in modules and name != module}


def graph(root: Path = ROOT) -> nx.DiGraph:
    """The package's import graph: an edge from each module to each package module it imports."""
    modules = module_names(root)
    g = nx.DiGraph()
    g.add_nodes_from(modules)
    for name, path in modules.items():
        g.add_edges_from((name, target) for target in imports_of(name, path, modules))
    return g


def cycles(root: Path = ROOT) -> list[list[str]]:
    """The strongly connected groups of more than one module: each is at least one import cycle."""
    return sorted(
        (sorted(c) for c in nx.strongly_connected_components(graph(root)) if len(c) > 1),
        key=len,
        reverse=True,
    )


def main() -> int:
    found = cycles()
    for group in found:
        print(f"cycle over {len(group)} modules: {', '.join(group)}")
    print(f"{len(found)} import cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
