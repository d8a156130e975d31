"""The memory in LlamaIndex (extra `llamaindex`): `PsychoAgentRetriever`, a retriever, and `PsychoAgentChatMemory`,
the chat memory an agent or chat engine takes as `memory=`.

Retrieved nodes hold the stored text and, in their metadata, the unit's affect, validity and every conflict record
it takes part in (as the LangChain adapter's documents do), so a query engine can show both sides of a conflict.

>>> from psychoagent import Memory
>>> from psychoagent.integrations.llamaindex import PsychoAgentRetriever
>>> mem = Memory(embedder="hash")
>>> _ = mem.observe("Alice moved to Berlin.")
>>> PsychoAgentRetriever(mem, k=1).retrieve("Where does Alice live?")[0].node.get_content()
'Alice moved to Berlin.'
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.callbacks import CallbackManager
from llama_index.core.memory import BaseMemory
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import ConfigDict, Field, field_validator

from psychoagent.integrations.calls import CHAT_KIND, MemoryLike, acall, call, check_memory, session_units
from psychoagent.integrations.hits import hit_metadata
from psychoagent.quoting import DATA_NOTE, escape, quote
from psychoagent.types import ConflictRecord, Recall

LLM_KEYS = ("current", "valid_at", "invalid_at", "valence", "arousal", "conflict_intensity", "conflicts")
"""Metadata a node shows a model next to its text (the rest, ids and score parts, stays for code)."""
MESSAGE_KEY = "llamaindex_message"
"""Unit metadata key of a stored chat message (its JSON): what marks a unit as one of a chat's messages."""


class PsychoAgentRetriever(BaseRetriever):
    """Hybrid, affect-aware recall from a `Memory` or `AsyncMemory`, returned as LlamaIndex nodes with scores."""

    def __init__(
        self,
        memory: MemoryLike,
        *,
        k: int = 4,
        where: dict[str, Any] | str | None = None,
        conflicts: bool = True,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        self.memory, self.k, self.where, self.conflicts = check_memory(memory), k, where, conflicts
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits: list[Recall] = call(self.memory, "recall", query_bundle.query_str, k=self.k, where=self.where)
        wanted = self.conflicts and hits
        records = call(self.memory, "conflicts", ids=[h.unit.id for h in hits]) if wanted else []
        return [to_node(hit, records) for hit in hits]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits: list[Recall] = await acall(
            self.memory, "recall", query_bundle.query_str, k=self.k, where=self.where
        )
        wanted = self.conflicts and hits
        records = await acall(self.memory, "conflicts", ids=[h.unit.id for h in hits]) if wanted else []
        return [to_node(hit, records) for hit in hits]


def to_node(hit: Recall, records: list[ConflictRecord]) -> NodeWithScore:
    """One recalled unit as a scored `TextNode`: its text, and metadata with affect, validity and conflicts."""
    metadata = hit_metadata(hit, records)
    node = TextNode(
        id_=hit.unit.id,
        text=hit.unit.content,
        metadata=metadata,
        excluded_embed_metadata_keys=list(metadata),
        excluded_llm_metadata_keys=[key for key in metadata if key not in LLM_KEYS],
    )
    return NodeWithScore(node=node, score=hit.score)


class PsychoAgentChatMemory(BaseMemory):
    """Chat memory over a psychoagent namespace: every message is stored as a unit (appraised, checked for conflicts),
    and `get` returns the recent messages with, first, a system message of what the memory recalls for the latest one.

    It is a `BaseMemory` because that is the type LlamaIndex's agents (`FunctionAgent`, `ReActAgent`,
    `AgentWorkflow`) and chat engines take as `memory=`; a `BaseMemoryBlock` only sees the messages LlamaIndex's own
    `Memory` flushes out of its short-term queue, so it would miss the conversation until that queue overflows.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any = Field(..., exclude=True, description="a psychoagent Memory or AsyncMemory")
    session_id: str = Field("chat", min_length=1, description="which conversation of the namespace this is")
    history: int = Field(20, ge=1, description="recent messages returned as they are")
    k: int = Field(4, ge=1, description="memories recalled for the latest message")
    where: dict[str, Any] | str | None = Field(
        None, description="filter of the recall, as Memory.recall takes"
    )

    @field_validator("memory")
    @classmethod
    def _is_memory(cls, value: Any) -> MemoryLike:
        return check_memory(value)

    @classmethod
    def class_name(cls) -> str:
        return "PsychoAgentChatMemory"

    @classmethod
    def from_defaults(  # type: ignore[override]
        cls, memory: MemoryLike, chat_history: list[ChatMessage] | None = None, **kwargs: Any
    ) -> PsychoAgentChatMemory:
        """A chat memory over `memory` (a namespace view), starting with `chat_history` when given."""
        made = cls(memory=memory, **kwargs)
        if chat_history:
            made.put_messages(chat_history)
        return made

    # -- reading ----------------------------------------------------------------------------------------
    def _stored(self) -> list[tuple[str, ChatMessage]]:
        """This chat's (unit id, message) pairs, oldest first."""
        units = session_units(call(self.memory, "units", kind=CHAT_KIND), self.session_id, MESSAGE_KEY)
        return [(u.id, ChatMessage.model_validate_json(u.metadata[MESSAGE_KEY])) for u in units]

    def get_all(self) -> list[ChatMessage]:
        """Every message of this chat, oldest first."""
        return [message for _, message in self._stored()]

    def get(self, input: str | ChatMessage | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The last `history` messages (whole turns, see `_window_start`) after a system message of the memories
        recalled for `input` or the latest user message; the messages in the window are not recalled again."""
        stored = self._stored()
        window = stored[_window_start([m for _, m in stored], self.history) :]
        query = _text(input) if input is not None else _latest_user_text([m for _, m in stored])
        if not query.strip():
            return [m for _, m in window]
        shown = {uid for uid, _ in window}
        hits: list[Recall] = call(self.memory, "recall", query, k=self.k + len(shown), where=self.where)
        hits = [h for h in hits if h.unit.id not in shown][: self.k]
        records = call(self.memory, "conflicts", ids=[h.unit.id for h in hits]) if hits else []
        recalled = (
            [ChatMessage(role=MessageRole.SYSTEM, content=render(query, hits, records))] if hits else []
        )
        return [*recalled, *(m for _, m in window)]

    # -- writing ----------------------------------------------------------------------------------------
    def put(self, message: ChatMessage) -> None:
        """Store one message as a unit of the namespace."""
        self.put_messages([message])

    def put_messages(self, messages: list[ChatMessage]) -> None:
        """Store messages in one transaction, in order."""
        if messages:
            call(self.memory, "observe_many", [self._item(m) for m in messages])

    def set(self, messages: list[ChatMessage]) -> None:
        """Replace this chat's messages: the old ones are forgotten, then `messages` stored."""
        self.reset()
        self.put_messages(messages)

    def reset(self) -> None:
        """Forget every message of this chat (tombstones stay; their text is erased)."""
        for uid, _ in self._stored():
            call(self.memory, "forget", uid, reason=f"chat {self.session_id!r} reset")

    def _item(self, message: ChatMessage) -> dict[str, Any]:
        role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
        text = (
            _text(message).strip() or f"[{role} message: {', '.join(b.block_type for b in message.blocks)}]"
        )
        metadata = {"session": self.session_id, "role": role, MESSAGE_KEY: message.model_dump_json()}
        return {"text": text, "kind": CHAT_KIND, "metadata": metadata}


def _window_start(messages: list[ChatMessage], history: int) -> int:
    """Where the window of the last `history` messages starts: at the first user message in it, so no turn (no tool
    result) is cut in two; when the cut falls inside the current turn, at the user message that opened it."""
    cut = max(len(messages) - history, 0)
    users = [i for i, m in enumerate(messages) if m.role == MessageRole.USER]
    after = [i for i in users if i >= cut]
    before = [i for i in users if i < cut]
    return after[0] if after else before[-1] if before else cut


def _text(message: str | ChatMessage) -> str:
    return message if isinstance(message, str) else message.content or ""


def _latest_user_text(messages: list[ChatMessage]) -> str:
    return next((_text(m) for m in reversed(messages) if m.role == MessageRole.USER), "")


def render(query: str, hits: list[Recall], records: list[ConflictRecord]) -> str:
    """The recalled memories as quoted data, each with its validity and affect, then every conflict among them
    with both sides and which one is newer."""
    lines = [f"Long-term memory recalled for {escape(query, 200)}.", DATA_NOTE, "Memories (best first):"]
    for n, hit in enumerate(hits, 1):
        unit = hit.unit
        ended = f" {unit.invalid_at:%Y-%m-%d %H:%M}" if unit.invalid_at else ""
        valid = "current" if unit.is_current else f"superseded{ended}"
        affect = f"valence {unit.affect.valence:+g}, arousal {unit.affect.arousal:g}"
        said = quote(unit.content, source=unit.id, time=unit.created_at, limit=1000)
        lines.append(f"{n}. {said} [{valid}; {affect}; conflict {unit.affect.conflict_intensity:g}]")
    if records:
        lines.append("Conflicts (both sides kept; the newer side is the current one unless resolved):")
        for r in records:
            lines.append(
                f"- {r.kind}, intensity {r.intensity}/4, {r.status.value}: earlier "
                f"{quote(r.description_a, source=r.side_a, limit=500)}; newer "
                f"{quote(r.description_b, source=r.side_b, limit=500)}"
            )
    return "\n".join(lines)
