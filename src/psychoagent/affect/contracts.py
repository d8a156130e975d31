"""What appraisal plugs into: the appraiser every memory and agent calls, and the chat model an LLM appraiser asks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from psychoagent.types import Affect

Message = dict[str, str]
"""One chat message: {"role": ..., "content": ...}."""


@runtime_checkable
class Appraiser(Protocol):
    """Labels an event (text, or a structured outcome) with an Affect given the agent's goals and context."""

    def appraise(self, event: Any, goals: Sequence[str] = (), context: Any = None) -> Affect: ...


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers chat messages with text, e.g. a `psychoagent.llm` LanguageModel (`complete(messages,
    purpose=...)` returning str, or an object with `.text`). A plain callable `fn(messages) -> str` works too."""

    def complete(self, messages: list[Message], **kwargs: Any) -> Any: ...
