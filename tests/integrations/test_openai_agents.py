"""`PsychoAgentSession` under the Agents SDK's own `Runner` (a fixed model, offline), and against the SDK's
`SQLiteSession` on the same calls."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("agents", reason="the 'openai-agents' extra is not installed")

from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool
from agents.items import ModelResponse, TResponseStreamEvent
from agents.memory.session import SessionABC
from agents.memory.session_settings import SessionSettings
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from psychoagent.integrations.openai_agents import ITEM_KEY, PsychoAgentSession, item_text
from psychoagent.memory.aio import AsyncMemory
from psychoagent.memory.api import Memory

OFFLINE = RunConfig(tracing_disabled=True)


def _say(text: str) -> ResponseOutputMessage:
    content = [ResponseOutputText(text=text, type="output_text", annotations=[])]
    return ResponseOutputMessage(
        id="msg", type="message", role="assistant", status="completed", content=content
    )


def _call(name: str, arguments: dict[str, Any]) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", call_id=f"call_{name}", name=name, arguments=json.dumps(arguments)
    )


class FixedModel(Model):
    """The SDK's `Model` with fixed responses, one per call, keeping the input of every call."""

    def __init__(self, *responses: list[Any]) -> None:
        self.responses = list(responses)
        self.inputs: list[Any] = []

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.inputs.append(copy.deepcopy(input))
        return ModelResponse(output=self.responses.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the tests do not stream")


def _texts(items: list[Any]) -> list[str]:
    return [item_text(i) for i in items]


@function_tool
def home_city(person: str) -> str:
    """Where a person lives."""
    return f"{person} lives in Paris."


async def test_runner_reads_the_first_turn_back_from_the_session() -> None:
    """Two runs on one session: the second run's model input starts with the first turn, items as the SDK gave them."""
    mem = Memory(None, namespace="alice", embedder="hash")
    session = PsychoAgentSession("conv-1", mem)
    assert isinstance(session, SessionABC)
    model = FixedModel(
        [_call("home_city", {"person": "Alice"})],
        [_say("Alice lives in Paris.")],
        [_say("You asked where Alice lives.")],
    )
    agent = Agent(name="helper", instructions="Answer briefly.", model=model, tools=[home_city])
    first = await Runner.run(agent, "Where does Alice live?", session=session, run_config=OFFLINE)
    assert first.final_output == "Alice lives in Paris."
    stored = await session.get_items()
    assert stored == first.to_input_list()  # exactly what the run produced, in order
    assert [i.get("type") for i in stored] == [None, "function_call", "function_call_output", "message"]
    second = await Runner.run(agent, "What did I ask?", session=session, run_config=OFFLINE)
    assert second.final_output == "You asked where Alice lives."
    seen = model.inputs[-1]
    assert seen[: len(stored)] == stored and _texts(seen[len(stored) :]) == ["What did I ask?"]
    assert _texts(await session.get_items()) == [
        "Where does Alice live?", 'home_city({"person": "Alice"})', "Alice lives in Paris.", "Alice lives in Paris.",
        "What did I ask?", "You asked where Alice lives.",
    ]  # fmt: skip
    units = [u for u in mem.units() if ITEM_KEY in u.metadata]
    assert len(units) == 6 and {u.metadata["session"] for u in units} == {"conv-1"}
    recalled = {
        h.unit.content
        for h in mem.recall("Where does Alice live?", k=10, where={"metadata.session": "conv-1"})
    }
    assert recalled == set(_texts(await session.get_items()))  # every item is a memory the agent can recall


async def test_the_same_calls_give_what_the_sdk_sqlite_session_gives() -> None:
    """add, get (with limits), pop and clear answer like the SDK's own `SQLiteSession`."""
    items: list[Any] = [
        {"role": "user", "content": "My budget is 1000 yuan."},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Noted.", "annotations": []}]},
        {"type": "function_call", "call_id": "c1", "name": "convert", "arguments": '{"yuan": 1000}'},
        {"type": "function_call_output", "call_id": "c1", "output": "about 140 dollars"},
        {"role": "user", "content": "Raise it to 3000 yuan. \u00e9\u4e2d"},
    ]
    ours = PsychoAgentSession("s", Memory(None, namespace="n", embedder="hash"))
    reference = SQLiteSession("s")

    async def both(name: str, *args: Any) -> Any:
        mine, theirs = await getattr(ours, name)(*args), await getattr(reference, name)(*args)
        assert mine == theirs, name
        return mine

    assert await both("get_items") == [] and await both("pop_item") is None
    await both("add_items", items[:2])
    await both("add_items", [])
    await both("add_items", items[2:])
    for limit in (None, 0, 1, 3, 10):
        await both("get_items", limit)
    assert await both("pop_item") == items[-1]
    assert await both("get_items") == items[:-1]
    await both("clear_session")
    assert await both("get_items") == [] and await both("pop_item") is None
    reference.close()
    limited = PsychoAgentSession("s2", ours.memory, session_settings=SessionSettings(limit=2))
    await limited.add_items(items)
    assert await limited.get_items() == items[-2:] and await limited.get_items(limit=4) == items[-4:]


async def test_clear_forgets_and_sessions_of_a_namespace_stay_apart() -> None:
    """Over an `AsyncMemory`: clearing one session erases its texts (tombstones stay), the other keeps its items."""
    async with AsyncMemory(None, namespace="shared", embedder="hash") as mem:
        one, two = PsychoAgentSession("one", mem), PsychoAgentSession("two", mem)
        await one.add_items([{"role": "user", "content": "The launch code is tulip."}])
        await two.add_items([{"role": "user", "content": "Bob plays chess on Sundays."}])
        assert "The launch code is tulip." in [h.unit.content for h in await mem.recall("launch code", k=2)]
        await one.clear_session()
        assert await one.get_items() == [] and len(await two.get_items()) == 1
        assert all("tulip" not in h.unit.content for h in await mem.recall("launch code tulip", k=5))
        units = await mem.units()
        assert [u.kind for u in units] == ["forgotten", "chat"] and "tulip" not in json.dumps(
            units[0].metadata
        )
    with pytest.raises(ValueError, match="session_id"):
        PsychoAgentSession("", Memory(None, embedder="hash"))
    with pytest.raises(TypeError, match="Memory or AsyncMemory"):
        PsychoAgentSession("s", "agent.db")  # type: ignore[arg-type]


def test_item_text_reads_every_item_shape() -> None:
    assert item_text({"role": "user", "content": [{"type": "input_text", "text": "hi"}]}) == "hi"
    assert (
        item_text(
            {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text", "text": "ok"}]}
        )
        == "ok"
    )
    assert item_text({"type": "reasoning", "id": "r", "summary": []}) == "[reasoning]"
    assert item_text({"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}) == "no"
