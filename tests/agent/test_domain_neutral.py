"""`psychoagent.agent` is the domain-neutral loop: it imports nothing from the economy, and a non-economic
agent (here a chat assistant with a tiny belief graph) can note, encode, brief and reflect with it."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psychoagent.agent
from psychoagent.agent.cognition import CognitiveAgent
from psychoagent.agent.config import CognitiveConfig
from psychoagent.memory.api import Memory
from psychoagent.persona import Persona
from psychoagent.types import Briefing


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_no_module_of_agent_imports_the_economy() -> None:
    folder = Path(psychoagent.agent.__file__).parent
    found = {
        p.name: sorted(m for m in _imports(p) if m.startswith("psychoagent.econ"))
        for p in folder.glob("*.py")
    }
    assert len(found) >= 5  # bus, cognition, config, recall, __init__
    assert {k: v for k, v in found.items() if v} == {}


def test_importing_the_agent_package_loads_no_economy_module() -> None:
    code = (
        "import sys, psychoagent.agent.cognition, psychoagent.agent.bus, psychoagent.agent.recall;"
        "print(sorted(m for m in sys.modules if m.startswith('psychoagent.econ')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@dataclass
class _Seen:
    text: str


class _Topics:
    """A minimal belief graph: one prior belief about 'tea', reached from the entity 'drinks'."""

    def __init__(self) -> None:
        self.reflections = 0

    def seed_priors(self, when: datetime) -> None:
        self.seeded = when

    def neighbours(self, entities: Sequence[str], depth: int) -> dict[str, int]:
        return {"entity:drinks": 0} if "drinks" in entities else {}

    def reflect(self, when: datetime, min_evidence: int) -> list[str]:
        self.reflections += 1
        return ["the user prefers tea"]


def test_a_chat_assistant_uses_the_loop_without_the_economy() -> None:
    mem = Memory(embedder="hash", appraiser=None, namespace="assistant")
    topics = _Topics()
    agent = CognitiveAgent(0, mem, CognitiveConfig(), topics)
    agent.note(1, "The user said they switched from coffee to green tea.")
    agent.note(1, "The user asked for a quiet cafe nearby.")
    assert len(agent.encode(1)) == 2 and not agent.pending
    b = agent.brief(2, "what does the user drink", [_Seen("It is morning.")], ["drinks"], Persona())
    assert "green tea" in b.text and "Now: It is morning." in b.text and not b.metadata["reused"]
    assert agent.brief(
        2, "what does the user drink", [_Seen("It is morning.")], ["drinks"], Persona()
    ).metadata["reused"]
    assert agent.reflect(3) == ["the user prefers tea"] and topics.reflections == 1


def test_the_briefing_is_the_librarys_with_the_conflicts_memory_brief_found() -> None:
    mem = Memory(embedder="hash", namespace="planner")  # the heuristic appraiser links clashing facts
    agent = CognitiveAgent(0, mem, CognitiveConfig(), _Topics())
    agent.note(1, "The user set the equipment budget to 2000 yuan.")
    agent.encode(1)
    agent.note(2, "The user raised the equipment budget from 2000 to 3000 yuan.")
    agent.encode(2)
    b = agent.brief(3, "equipment budget", [], [], Persona())
    assert isinstance(b, Briefing) and b.query == "equipment budget"
    assert {r.unit.content for r in b.memories} >= {"The user set the equipment budget to 2000 yuan."}
    assert len(b.conflicts) == 1 and {b.conflicts[0].side_a, b.conflicts[0].side_b} == {
        u.unit.id for u in b.memories
    }
    assert [w.kind for w in b.metadata["working"]] == ["episode", "episode"]
    again = agent.brief(3, "equipment budget", [], [], Persona())
    assert again.metadata["reused"] and again.conflicts == b.conflicts  # a reused recall keeps its conflicts
