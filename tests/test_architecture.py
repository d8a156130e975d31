"""The shape of the package: no import cycle, small files, one home per concept (the layers and independence
contracts are checked by import-linter in scripts/test.sh; see the README's "Layout" section)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import psychoagent

ROOT = Path(psychoagent.__file__).parent
REPO = ROOT.parents[1]


def _cycles_module():  # scripts/ is not a package: load the checker from its file
    spec = importlib.util.spec_from_file_location("import_cycles", REPO / "scripts" / "import_cycles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_cycle_counting_every_import() -> None:
    assert _cycles_module().cycles(ROOT) == []


def test_the_cycle_checker_sees_imports_in_functions_and_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "psychoagent"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from psychoagent import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from psychoagent.a import f\n"
    )
    assert _cycles_module().cycles(pkg) == [["psychoagent.a", "psychoagent.b"]]


def test_modules_stay_small_and_memory_has_few_top_level_modules() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 450
    }
    assert long == {}
    assert len(list((ROOT / "memory").glob("*.py"))) <= 15


def _classes(name: str) -> list[str]:
    found = []
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            str(path.relative_to(ROOT))
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and n.name == name
        ]
    return found


@pytest.mark.parametrize("name", ["OutcomeEvent", "Appraiser", "Briefing", "Embedder", "MemoryStore"])
def test_one_home_per_concept(name: str) -> None:
    assert len(_classes(name)) == 1, _classes(name)


def test_one_config_base_without_aliases() -> None:
    aliased = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if "_Config =" in p.read_text(encoding="utf-8")
               or "import ConfigModel as" in p.read_text(encoding="utf-8")]  # fmt: skip
    assert aliased == []
