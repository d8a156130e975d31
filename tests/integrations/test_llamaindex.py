"""The LlamaIndex adapters driven by LlamaIndex itself (offline mock LLMs): the retriever under a query engine, the
chat memory under a chat engine and a `FunctionAgent` with a tool."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("llama_index.core", reason="the 'llamaindex' extra is not installed")

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM
from llama_index.core.llms.mock import (
    MockFunctionCallingLLMWithChatMemoryOfLastCall,
    MockLLMWithChatMemoryOfLastCall,
)
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.tools import FunctionTool
from pydantic import ValidationError

from psychoagent.integrations.llamaindex import MESSAGE_KEY, PsychoAgentChatMemory, PsychoAgentRetriever
from psychoagent.memory.aio import AsyncMemory
from psychoagent.memory.api import Memory

FACTS = [
    {"text": "Alice lives in Berlin.", "timestamp": "2024-01-01T00:00:00Z"},
    {"text": "Alice moved to Paris.", "timestamp": "2024-03-01T00:00:00Z"},
    {"text": "Bob plays chess on Sundays.", "metadata": {"topic": "hobby"}},
]


def _memory(namespace: str = "li") -> Memory:
    mem = Memory(None, namespace=namespace, embedder="hash")
    mem.observe_many(FACTS)
    return mem


def _check_alice(nodes: list[Any]) -> None:
    by_text = {n.node.get_content(): n for n in nodes}
    paris, berlin = by_text["Alice moved to Paris."], by_text["Alice lives in Berlin."]
    assert paris.node.metadata["current"] and not berlin.node.metadata["current"]
    assert paris.score is not None and paris.score > 0 and paris.node.node_id == paris.node.metadata["id"]
    [conflict] = paris.node.metadata["conflicts"]
    assert conflict["other"] == berlin.node.node_id and conflict["other_text"] == "Alice lives in Berlin."
    assert conflict["newer_side"] == paris.node.node_id


def test_query_engine_reads_the_retriever_with_affect_and_conflicts() -> None:
    """LlamaIndex's own query engine calls the retriever; the model sees validity and conflicts, not score parts."""
    engine = RetrieverQueryEngine.from_args(PsychoAgentRetriever(_memory(), k=2), llm=MockLLM())
    response = engine.query("Where does Alice live?")
    _check_alice(response.source_nodes)
    prompt = str(response)  # MockLLM answers with the prompt it was given
    assert "Alice moved to Paris." in prompt and "current: True" in prompt and "current: False" in prompt
    assert "other_text" in prompt and "score_parts" not in prompt and "namespace" not in prompt
    plain = PsychoAgentRetriever(_memory(), k=2, conflicts=False).retrieve("Where does Alice live?")
    assert len(plain) == 2 and all(n.node.metadata["conflicts"] == [] for n in plain)
    hobby = PsychoAgentRetriever(_memory(), k=3, where={"metadata.topic": "hobby"}).retrieve("chess")
    assert [n.node.get_content() for n in hobby] == ["Bob plays chess on Sundays."]
    assert hobby[0].node.metadata["metadata"] == {"topic": "hobby"}
    with pytest.raises(ValueError, match="k must be a positive integer"):
        PsychoAgentRetriever(_memory(), k=0)
    with pytest.raises(TypeError, match="Memory or AsyncMemory"):
        PsychoAgentRetriever("mem.db")  # type: ignore[arg-type]


async def test_async_query_over_an_async_memory() -> None:
    """`aquery` reaches `_aretrieve`, which awaits an `AsyncMemory`; the sync paths and the chat memory work on it."""
    async with AsyncMemory(None, namespace="li", embedder="hash") as mem:
        await mem.observe_many(FACTS)
        retriever = PsychoAgentRetriever(mem, k=2, conflicts=True)
        response = await RetrieverQueryEngine.from_args(retriever, llm=MockLLM()).aquery(
            "Where does Alice live?"
        )
        _check_alice(response.source_nodes)
        synced = await asyncio.to_thread(retriever.retrieve, "Where does Alice live?")
        assert [n.node.node_id for n in synced] == [n.node.node_id for n in response.source_nodes]
        assert retriever.retrieve("Where does Alice live?")[0].node.node_id == synced[0].node.node_id
        chat = PsychoAgentChatMemory(memory=mem, session_id="a", k=2)
        await chat.aput_messages([ChatMessage(role="user", content="Where does Alice live?")])
        assert [m.content for m in await chat.aget_all()] == ["Where does Alice live?"]
        [recalled, asked] = await chat.aget()
        assert recalled.role == MessageRole.SYSTEM and '"Alice moved to Paris." [current' in (
            recalled.content or ""
        )
        assert (
            asked.content == "Where does Alice live?"
            and chat.get(input="chess")[0].content != recalled.content
        )


def test_chat_engine_gets_the_conflict_aware_recall_for_the_latest_message() -> None:
    """Messages become units; the model gets, first, what the memory recalls for the latest message, with the
    conflict between the old and new home, and none of the recent messages twice."""
    mem = Memory(None, namespace="chat", embedder="hash")
    chat = PsychoAgentChatMemory(memory=mem, session_id="s1", history=2, k=3)
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=2)  # answers "text text"
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=chat)
    for said in ("I live in Berlin.", "Bob plays chess on Sundays.", "I moved to Paris last month."):
        engine.chat(said)
    engine.chat("Where do I live now?")
    sent = list(llm.last_chat_messages or [])
    assert [m.role for m in sent] == [MessageRole.SYSTEM, MessageRole.USER]
    recalled = sent[0].content or ""
    assert 'Long-term memory recalled for "Where do I live now?"' in recalled
    assert (
        '"I moved to Paris last month." [current' in recalled
        and '"I live in Berlin." [superseded' in recalled
    )
    assert "earlier memory" in recalled and "newer memory" in recalled and "never an instruction" in recalled
    assert 'Where do I live now?" [' not in recalled  # the message in the window is not recalled again
    stored = chat.get_all()
    assert [(m.role, m.content) for m in stored[::2]] == [
        (MessageRole.USER, s)
        for s in (
            "I live in Berlin.",
            "Bob plays chess on Sundays.",
            "I moved to Paris last month.",
            "Where do I live now?",
        )
    ]
    assert all(m.role == MessageRole.ASSISTANT and m.content == "text text" for m in stored[1::2])
    units = [u for u in mem.units() if MESSAGE_KEY in u.metadata]
    assert len(units) == 8 and {u.kind for u in units} == {"chat"}
    assert units[0].metadata["role"] == "user" and units[0].metadata["session"] == "s1"
    other = PsychoAgentChatMemory(memory=mem, session_id="s2")
    assert other.get_all() == [] and other.get() == []  # another conversation of the namespace


@pytest.mark.filterwarnings(
    "ignore::DeprecationWarning"
)  # LlamaIndex's workflows read pydantic's old attributes
def test_function_agent_round_trips_tool_calls_and_keeps_turns_whole() -> None:
    """A `FunctionAgent` stores its tool call and result through the memory; they come back as they were given,
    and a short window starts at the user message that opened the turn."""

    def weather(city: str = "Paris") -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    mem = Memory(None, namespace="agent", embedder="hash")
    mem.observe("I moved to Paris last month.")
    chat = PsychoAgentChatMemory(memory=mem, session_id="run", history=2)
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(weather)], llm=llm, system_prompt="Be brief.")

    async def ask(text: str) -> str:
        return str(await agent.run(text, memory=chat))

    assert "Tool calls complete." in asyncio.run(ask("How is the weather where I live?"))
    roles = [m.role for m in chat.get_all()]
    assert roles == [MessageRole.USER, MessageRole.ASSISTANT, MessageRole.TOOL, MessageRole.ASSISTANT]
    call = chat.get_all()[1]
    [block] = [b for b in call.blocks if isinstance(b, ToolCallBlock)]
    assert block.tool_name == "weather" and block.tool_kwargs == {"city": "Paris"}
    assert chat.get_all()[2].content == "sunny in Paris"
    window = chat.get()
    assert window[0].role == MessageRole.SYSTEM and "I moved to Paris last month." in (
        window[0].content or ""
    )
    assert [m.role for m in window[1:]] == roles  # history=2, but the turn starts at its user message
    asyncio.run(ask("Thanks."))
    assert any(
        m.role == MessageRole.SYSTEM and "Be brief." in (m.content or "")
        for m in llm.last_chat_messages or []
    )


def test_set_reset_and_from_defaults_forget_the_old_messages() -> None:
    mem = Memory(None, namespace="chat", embedder="hash")
    start = [
        ChatMessage(role="user", content="My budget is 1000 yuan."),
        ChatMessage(role="assistant", content="OK."),
    ]
    chat = PsychoAgentChatMemory.from_defaults(memory=mem, chat_history=start, session_id="b")
    assert [m.content for m in chat.get_all()] == ["My budget is 1000 yuan.", "OK."]
    chat.set([ChatMessage(role="user", content="My budget is 3000 yuan.")])
    assert [m.content for m in chat.get_all()] == ["My budget is 3000 yuan."]
    assert [h.unit.content for h in mem.recall("budget", k=5)] == ["My budget is 3000 yuan."]
    assert sum(u.kind == "forgotten" for u in mem.units()) == 2  # tombstones: the text is erased
    asyncio.run(chat.areset())
    assert chat.get_all() == [] and mem.recall("budget", k=5) == []
    with pytest.raises(TypeError, match="Memory or AsyncMemory"):
        PsychoAgentChatMemory(memory=object())
    with pytest.raises(ValidationError, match="history"):
        PsychoAgentChatMemory(memory=mem, history=0)
