"""`PsychoAgentRetriever`: the memory as a LangChain retriever (extra `langchain`).

Each hit becomes a `Document` whose `page_content` is the stored text (data, not instructions) and whose metadata
carries the unit's affect, validity and every conflict record it takes part in, so a chain can show both sides of
a conflict instead of silently picking one.

>>> from psychoagent import Memory
>>> from psychoagent.integrations.langchain import PsychoAgentRetriever
>>> mem = Memory(embedder="hash")
>>> _ = mem.observe("Alice moved to Berlin.")
>>> PsychoAgentRetriever(memory=mem, k=1).invoke("Where does Alice live?")[0].page_content
'Alice moved to Berlin.'
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from psychoagent.integrations.hits import hit_metadata
from psychoagent.types import ConflictRecord, Recall


class PsychoAgentRetriever(BaseRetriever):
    """Hybrid, affect-aware recall from a `psychoagent.Memory`, returned as LangChain `Document`s."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any = Field(..., description="a psychoagent.Memory (one namespace view)")
    k: int = Field(4, ge=1, description="documents per query")
    where: dict[str, Any] | str | None = Field(None, description="filter, as Memory.recall takes it")
    conflicts: bool = Field(True, description="attach the conflict records each unit takes part in")

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        k = kwargs.pop("k", self.k)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        where = kwargs.pop("where", self.where)
        if kwargs:
            raise TypeError(f"unexpected arguments: {', '.join(sorted(kwargs))} (allowed: k, where)")
        hits: list[Recall] = self.memory.recall(query, k=k, where=where)
        records: list[ConflictRecord] = (
            self.memory.conflicts(ids=[h.unit.id for h in hits]) if self.conflicts and hits else []
        )
        return [to_document(hit, records) for hit in hits]


def to_document(hit: Recall, records: list[ConflictRecord]) -> Document:
    """One recalled unit as a Document: text, score parts, affect, validity and its conflicts."""
    return Document(id=hit.unit.id, page_content=hit.unit.content, metadata=hit_metadata(hit, records))
