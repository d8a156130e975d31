"""`PsychoAgentRetriever` under langchain-tests' standard retriever suite, and its affect/conflict metadata."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="the 'langchain' extra is not installed")
pytest.importorskip("langchain_tests", reason="langchain-tests is in the 'dev' extra")

from langchain_core.documents import Document
from langchain_tests.integration_tests import RetrieversIntegrationTests

from psychoagent.integrations.langchain import PsychoAgentRetriever
from psychoagent.memory.api import Memory


def _memory() -> Memory:
    mem = Memory(None, namespace="lc", embedder="hash")
    mem.observe("Alice lives in Berlin.", timestamp="2024-01-01T00:00:00Z")
    mem.observe("Alice moved to Paris.", timestamp="2024-03-01T00:00:00Z")
    mem.observe("Bob plays chess on Sundays.", metadata={"topic": "hobby"})
    mem.observe("The quarterly budget was cut by ten percent.", goals=["Keep the budget stable"])
    return mem


class TestPsychoAgentRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[PsychoAgentRetriever]:
        return PsychoAgentRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": _memory()}

    @property
    def retriever_query_example(self) -> str:
        return "Where does Alice live?"


def test_documents_carry_affect_and_both_sides_of_a_conflict() -> None:
    retriever = PsychoAgentRetriever(memory=_memory(), k=2)
    docs = retriever.invoke("Where does Alice live?")
    assert all(isinstance(d, Document) for d in docs)
    by_text = {d.page_content: d for d in docs}
    paris, berlin = by_text["Alice moved to Paris."], by_text["Alice lives in Berlin."]
    assert paris.metadata["current"] and not berlin.metadata["current"]
    assert paris.metadata["conflict_intensity"] > 0 and "relevance" in paris.metadata["score_parts"]
    [conflict] = paris.metadata["conflicts"]
    assert conflict["other"] == berlin.id and conflict["other_text"] == "Alice lives in Berlin."
    assert conflict["newer_side"] == paris.id
    hobby = retriever.invoke("chess", k=3, where={"metadata.topic": "hobby"})
    assert [d.page_content for d in hobby] == ["Bob plays chess on Sundays."]
    assert hobby[0].metadata["metadata"] == {"topic": "hobby"}
    with pytest.raises(ValueError, match="k must be a positive integer"):
        retriever.invoke("x", k="3")
