"""The old home of the LLM layer's contracts, kept so that imports naming `psychoagent.llm.base` keep working;
the types and protocols live in `psychoagent.llm.contracts`, the request helpers in `psychoagent.llm.request`."""

from psychoagent.llm.contracts import (
    PURPOSES,
    Backend,
    CacheMissError,
    Completion,
    LanguageModel,
    LLMError,
    Message,
    ModeRejectedError,
    Prompt,
    Request,
    StructuredOutputError,
    TransientLLMError,
    WireMode,
)
from psychoagent.llm.request import as_messages, estimate_tokens

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
    "as_messages",
    "estimate_tokens",
]
