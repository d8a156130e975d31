"""OpenAI-compatible HTTP backend (OpenAI, vLLM, Ollama, llama.cpp server) through the official `openai` client."""

from __future__ import annotations

import asyncio
import json
import re
import weakref
from typing import Any

import openai

from psychoagent.llm.contracts import (
    Completion,
    LLMError,
    ModeRejectedError,
    Request,
    TransientLLMError,
    WireMode,
)
from psychoagent.llm.request import estimate_tokens

_MODE_REJECT_STATUS = {400, 422}
"""Statuses meaning "this server does not accept that response_format"; llama.cpp server also answers 500."""
_FORMAT_WORDS = ("response_format", "json_schema", "schema")
"""A 500 counts as a rejection of the structured mode only when its body names it; any other 500 is transient."""


def _names_format(body: str) -> bool:
    """Whether an error body talks about the structured-output request (a clear rejection, not a hiccup)."""
    low = body.lower()
    return any(w in low for w in _FORMAT_WORDS)


class OpenAIBackend:
    """Chat completions over HTTP; the structured mode is chosen per request, the client steps down on rejection."""

    def __init__(
        self,
        base_url: str,
        model: str = "default",
        api_key: str | None = None,
        timeout_s: float = 60.0,
        modes: tuple[WireMode, ...] = ("json_schema", "json_object", "prompt"),
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = model
        self.api_key = api_key or "not-needed"
        self.timeout_s = timeout_s
        self._modes = modes
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    def modes(self) -> tuple[WireMode, ...]:
        """json_schema (OpenAI, vLLM, Ollama), then json_object+schema (llama.cpp server), then prompt only."""
        return self._modes

    def _client(self) -> openai.AsyncOpenAI:
        """One async client per event loop: connection pools cannot be shared between loops."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = openai.AsyncOpenAI(
                base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s, max_retries=0
            )
            self._clients[loop] = client
        return client

    @staticmethod
    def response_format(request: Request) -> dict[str, Any] | None:
        """The `response_format` body field for the request's mode."""
        if request.schema is None or request.mode in ("prompt", "text"):
            return None
        if request.mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {
                    "name": re.sub(r"[^A-Za-z0-9_-]", "_", str(request.schema.get("title", "answer")))[:64],
                    "schema": request.schema,
                },
            }
        return {"type": "json_object", "schema": request.schema}

    async def acomplete(self, request: Request) -> Completion:
        """One chat completion; maps server failures to the layer's error types."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": list(request.messages),
            "temperature": request.sampling.temperature,
            "max_tokens": request.sampling.max_tokens,
            "top_p": request.sampling.top_p,
        }
        if request.sampling.seed is not None:
            kwargs["seed"] = request.sampling.seed
        fmt = self.response_format(request)
        if fmt is not None:
            kwargs["response_format"] = fmt
        try:
            resp = await self._client().chat.completions.create(**kwargs)
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            root = f" ({type(exc.__cause__).__name__}: {exc.__cause__})" if exc.__cause__ is not None else ""
            raise TransientLLMError(f"{self.base_url}: {type(exc).__name__}: {exc}{root}") from exc
        except openai.APIStatusError as exc:
            status = exc.status_code
            detail = (
                f"{self.base_url}: HTTP {status} in mode {request.mode}: {' '.join(str(exc).split())[:300]}"
            )
            if fmt is not None and (
                status in _MODE_REJECT_STATUS
                or (status == 500 and request.mode == "json_schema" and _names_format(str(exc)))
            ):
                raise ModeRejectedError(detail) from exc
            if status in (408, 409, 429) or status >= 500:
                raise TransientLLMError(detail) from exc
            raise LLMError(detail) from exc
        except (openai.APIError, ValueError, json.JSONDecodeError) as exc:
            # a garbled body is most often a proxy or server hiccup: worth another try
            raise TransientLLMError(
                f"{self.base_url}: unreadable response: {type(exc).__name__}: {exc}"
            ) from exc
        choices = getattr(resp, "choices", None)
        if not choices:
            raise LLMError(f"{self.base_url}: response without choices")
        text = choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        if not prompt_tokens:
            prompt_tokens = sum(estimate_tokens(m["content"]) for m in request.messages)
        if completion_tokens is None:
            completion_tokens = estimate_tokens(text)
        return Completion(
            text=text,
            prompt_tokens=int(prompt_tokens),
            completion_tokens=int(completion_tokens),
            model=str(getattr(resp, "model", self.model) or self.model),
        )
