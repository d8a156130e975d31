"""The event catalogue and the declared policy protocols: producers, consumers and the model agree on them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import psychoagent
from psychoagent.econ.contracts import Binds, Closes, Learner, Policy, UsesModel
from psychoagent.econ.distributed.driver import sharded
from psychoagent.econ.policies import make_policy
from psychoagent.econ.run import simulate, uses_llm
from psychoagent.eval.rundata import RunData
from psychoagent.events import DESCRIPTIONS, EventType, known

SRC = Path(psychoagent.__file__).parent


def test_every_type_is_described_and_dotted() -> None:
    assert set(DESCRIPTIONS) == set(EventType)
    for member in EventType:
        head, _, tail = member.value.partition(".")
        assert head and tail and member.value == member.value.lower()
    assert known("memory.formed") and not known("memory.forgotten")


def _emitted_literals() -> list[tuple[str, int, str]]:
    """(file, line, type) of every string literal passed as the event type of an `emit`/`_emit` call."""
    found = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr not in ("emit", "_emit") or len(node.args) < 2:
                continue
            arg = node.args[1]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.append((str(path.relative_to(SRC)), node.lineno, arg.value))
    return found


def test_every_literal_event_type_in_the_source_is_catalogued() -> None:
    unknown = [f"{f}:{line} {t!r}" for f, line, t in _emitted_literals() if not known(t)]
    assert not unknown, unknown


def test_a_cognitive_run_with_cognitive_firms_publishes_only_catalogued_types(tmp_path: Path) -> None:
    simulate(tmp_path, agents=12, ticks=13, seed=3, policy="cognitive", scenario="long_cooperation",
             firms="cognitive")  # fmt: skip
    types = set(RunData.open(tmp_path).event_counts)
    assert {EventType.MEMORY_FORMED, EventType.FIRM_DECIDED, EventType.ORDER_FILLED} <= types
    assert {t for t in types if not known(t)} == set()


def test_consumers_count_what_producers_publish() -> None:
    """The metrics and reports filter on catalogue members (a str enum: equal to the plain type)."""
    from psychoagent.econ.firms.events import FIRM_EVENTS
    from psychoagent.eval.metrics import COGNITION_EVENTS
    from psychoagent.eval.social import social_metrics

    assert all(isinstance(t, EventType) for t in FIRM_EVENTS)
    assert all(isinstance(t, EventType) for types in COGNITION_EVENTS.values() for t in types)
    events = [
        {"type": "negotiation.offer", "payload": {"buyer": 1, "seller": 2}},
        {"type": "negotiation.accepted", "payload": {"buyer": 1, "seller": 2}},
        {"type": "negotiation.offer", "payload": {"buyer": 3, "seller": 2}},
        {"type": "negotiation.broken", "payload": {"buyer": 3, "seller": 2}},
    ]
    out = social_metrics(events)
    assert out["negotiations"] == 2 and out["cooperation_rate"] == 0.5 and out["offers_per_negotiation"] == 1


@pytest.mark.parametrize(
    ("name", "binds", "learns", "asks_model"),
    [("persona", False, False, False), ("composite", True, False, False), ("cognitive", True, True, False),
     ("llm", True, True, True), ("econagent", True, True, True)],
)  # fmt: skip
def test_built_in_policies_declare_what_they_do(
    name: str, binds: bool, learns: bool, asks_model: bool
) -> None:
    policy = make_policy(name)
    assert isinstance(policy, Policy)
    assert isinstance(policy, Binds) is binds
    assert isinstance(policy, Learner) is learns
    assert isinstance(policy, UsesModel) is asks_model
    assert uses_llm(name) is asks_model


def test_a_sharded_policy_must_be_closed() -> None:
    policy = sharded(make_policy("cognitive"), 2, "local", None)
    try:
        assert isinstance(policy, Closes) and isinstance(policy, Binds)
    finally:
        policy.close()
