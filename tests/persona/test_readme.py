"""The persona page's example (docs/persona.md) runs and prints the explanation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "persona.md"


def test_readme_persona_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    section = PAGE.read_text(encoding="utf-8").split("# Persona\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "the Persona section has a python example"
    exec(compile(blocks[0], "docs/persona.md", "exec"), {})
    out = capsys.readouterr().out
    assert "prediction error -25.0% (major)" in out
    assert "risk_preference: 0.700 -> 0.580" in out
    assert "True" in out
