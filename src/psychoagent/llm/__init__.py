"""LLM layer: every model call (appraisal, fusion, decision, reflection) goes through an `LLMClient`.

Backends are imported lazily: `import psychoagent.llm` never loads llama.cpp.
"""

from __future__ import annotations

from psychoagent.llm.accounting import Usage
from psychoagent.llm.cache import ResponseCache
from psychoagent.llm.client import LLMClient
from psychoagent.llm.config import (
    CacheConfig,
    LLMConfig,
    LocalModelConfig,
    RetryConfig,
    Sampling,
    StructuredConfig,
)
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
)
from psychoagent.llm.factory import get_model
from psychoagent.llm.offline import OfflineBackend

__all__ = [
    "PURPOSES",
    "Backend",
    "CacheConfig",
    "CacheMissError",
    "Completion",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LanguageModel",
    "LocalModelConfig",
    "Message",
    "ModeRejectedError",
    "OfflineBackend",
    "Prompt",
    "Request",
    "ResponseCache",
    "RetryConfig",
    "Sampling",
    "StructuredConfig",
    "StructuredOutputError",
    "TransientLLMError",
    "Usage",
    "get_model",
]
