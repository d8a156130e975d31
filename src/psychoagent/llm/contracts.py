"""The contracts of the LLM layer: messages, requests, raw completions, the errors a backend raises, and the
`Backend` and `LanguageModel` protocols every model client and backend implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, runtime_checkable

from pydantic import BaseModel

from psychoagent.llm.config import Sampling

T = TypeVar("T", bound=BaseModel)

__all__ = [
    "PURPOSES",
    "Backend",
    "CacheMissError",
    "Completion",
    "LLMError",
    "LanguageModel",
    "Message",
    "ModeRejectedError",
    "Prompt",
    "Request",
    "StructuredOutputError",
    "TransientLLMError",
    "WireMode",
]

Message: TypeAlias = dict[str, str]
"""One chat message: {"role": "system" | "user" | "assistant", "content": "..."}."""

Prompt: TypeAlias = str | Sequence[Message]
"""A bare string is one user message."""

WireMode: TypeAlias = Literal["json_schema", "json_object", "prompt", "grammar", "text"]
"""How a request asks for its format: a server's response_format, a local grammar, or nothing."""

PURPOSES = ("appraisal", "fusion", "decision", "reflection")
"""The purposes the project's own calls use; any other string is accepted and accounted separately."""


class LLMError(RuntimeError):
    """A call that could not be completed (after transport retries) and had no fallback to fall back on."""


class TransientLLMError(LLMError):
    """Worth retrying: timeout, HTTP 429 or 5xx, dropped connection."""


class ModeRejectedError(LLMError):
    """The server refused the structured-output mode of the request (HTTP 400/422/500 for that mode)."""


class CacheMissError(LLMError):
    """Replay mode found no recorded response for a request: the run differs from the recorded one."""


class StructuredOutputError(LLMError):
    """No valid object after parsing, repair and retries, and no fallback was declared."""


@dataclass(frozen=True)
class Request:
    """One call to a backend: messages, the prepared JSON schema (if any) and sampling parameters."""

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None
    sampling: Sampling
    mode: WireMode = "text"


@dataclass
class Completion:
    """What a backend returns: the text plus token counts (estimated where the backend has none)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    reused_tokens: int = 0
    """Prompt tokens the backend did not evaluate again (a local model's KV cache held them from the last call)."""


@runtime_checkable
class Backend(Protocol):
    """A source of raw completions; the `LLMClient` adds caching, retries, parsing and accounting on top."""

    name: str
    """Identifies the model in cache keys and logs, e.g. "openai:http://host/v1#model" or "local:smollm2"."""

    def modes(self) -> tuple[WireMode, ...]:
        """Structured modes to try, best first; the client steps down when one is rejected."""
        ...

    async def acomplete(self, request: Request) -> Completion:
        """Generate one completion; raise `TransientLLMError` or `ModeRejectedError` where they apply."""
        ...


@runtime_checkable
class LanguageModel(Protocol):
    """Chat messages in, text or a validated pydantic object out; each call has an async face and a blocking one."""

    name: str

    async def acomplete(
        self, messages: Prompt, *, purpose: str = "general", sampling: Sampling | None = None
    ) -> str:
        """Plain text answer."""
        ...

    def complete(
        self, messages: Prompt, *, purpose: str = "general", sampling: Sampling | None = None
    ) -> str:
        """Blocking `acomplete`."""
        ...

    async def astructured(
        self,
        messages: Prompt,
        output: type[T],
        *,
        purpose: str = "general",
        fallback: T | Callable[[str], T] | None = None,
        sampling: Sampling | None = None,
    ) -> T:
        """A validated `output` object, or the fallback; raises only when no fallback is declared."""
        ...

    def structured(
        self,
        messages: Prompt,
        output: type[T],
        *,
        purpose: str = "general",
        fallback: T | Callable[[str], T] | None = None,
        sampling: Sampling | None = None,
    ) -> T:
        """Blocking `astructured`."""
        ...
