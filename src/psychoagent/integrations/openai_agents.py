"""`PsychoAgentSession`: an OpenAI Agents SDK session kept in a psychoagent namespace (extra `openai-agents`).

Each conversation item is one unit: its text is what the item says (a message's text, a tool call, a tool's output),
so it is appraised, checked for conflicts and recalled like any memory, and its metadata holds the item's JSON,
so `get_items` returns the items exactly as the SDK gave them, in order. `pop_item` and `clear_session` forget
the units: their text and the item are erased and only tombstones stay.

    session = PsychoAgentSession("conversation-1", Memory("agent.db", namespace="alice"))
    result = await Runner.run(agent, "Hello", session=session)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from agents.items import TResponseInputItem
from agents.memory.session import SessionABC
from agents.memory.session_settings import SessionSettings, resolve_session_limit

from psychoagent.integrations.calls import CHAT_KIND, MemoryLike, acall, check_memory, session_units

ITEM_KEY = "agents_item"
"""Unit metadata key of a stored conversation item (its JSON): what marks a unit as one of a session's items."""


class PsychoAgentSession(SessionABC):
    """Conversation history of one session (`session_id`) in the namespace of a `Memory` or `AsyncMemory`;
    several sessions may share a namespace, each sees only its own items."""

    def __init__(
        self, session_id: str, memory: MemoryLike, *, session_settings: SessionSettings | None = None
    ) -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
        self.session_id = session_id
        self.memory = check_memory(memory)
        self.session_settings = session_settings or SessionSettings()
        self._lock = (
            asyncio.Lock()
        )  # a pop or a clear reads, then forgets: no other call of this session between

    async def _stored(self) -> list[tuple[str, TResponseInputItem]]:
        """This session's (unit id, item) pairs, oldest first."""
        units = session_units(await acall(self.memory, "units", kind=CHAT_KIND), self.session_id, ITEM_KEY)
        return [(u.id, json.loads(u.metadata[ITEM_KEY])) for u in units]

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items in order; with `limit` (or the settings' limit), the latest that many."""
        limit = resolve_session_limit(limit, self.session_settings)
        async with self._lock:
            items = [item for _, item in await self._stored()]
        if limit is None:
            return items
        return items[-limit:] if limit > 0 else []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Store the items, in order, in one transaction."""
        if not items:
            return
        rows = [self._row(item) for item in items]
        async with self._lock:
            await acall(self.memory, "observe_many", rows)

    async def pop_item(self) -> TResponseInputItem | None:
        """Forget the latest item and return it (None when the session is empty)."""
        async with self._lock:
            stored = await self._stored()
            if not stored:
                return None
            uid, item = stored[-1]
            await acall(self.memory, "forget", uid, reason=f"popped from session {self.session_id!r}")
        return item

    async def clear_session(self) -> None:
        """Forget every item of the session."""
        async with self._lock:
            for uid, _ in await self._stored():
                await acall(self.memory, "forget", uid, reason=f"session {self.session_id!r} cleared")

    def _row(self, item: TResponseInputItem) -> dict[str, Any]:
        """One `observe_many` row: the item's text, and its JSON with the session in the metadata."""
        data: Mapping[str, Any] = item
        role = data.get("role") or data.get("type") or "item"
        metadata = {"session": self.session_id, "role": str(role), ITEM_KEY: json.dumps(item)}
        return {"text": item_text(data), "kind": CHAT_KIND, "metadata": metadata}


def item_text(item: Mapping[str, Any]) -> str:
    """What a conversation item says, as text to remember: a message's text, a tool call with its arguments, a
    tool's output, a reasoning summary; `[role or type]` for items with no text."""
    kind = item.get("type") or "message"
    if kind == "function_call":
        parts: list[Any] = [f"{item.get('name', '')}({item.get('arguments', '')})"]
    elif kind == "function_call_output":
        parts = _texts(item.get("output"))
    elif kind == "reasoning":
        parts = _texts(item.get("summary"))
    else:
        parts = _texts(item.get("content"))
    text = "\n".join(p for p in parts if isinstance(p, str) and p.strip())
    return text or f"[{item.get('role') or kind}]"


def _texts(value: Any) -> list[Any]:
    """The texts in a content value: a string, or a list of parts with `text` (or `refusal`)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [p.get("text") or p.get("refusal") for p in value if isinstance(p, Mapping)]
    return []
