"""Deterministic model for tests and runs without an LLM: scripted responses, a rule callback, or schema defaults."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from psychoagent.llm.base import Completion, Message, Request, WireMode, estimate_tokens
from psychoagent.llm.schema import example_from_schema

Scripted = str | dict[str, Any] | BaseModel | BaseException
Rule = Callable[[tuple[Message, ...], dict[str, Any] | None], Scripted | None]
"""Gets (messages, schema or None); returns an answer, or None to fall through to the script and defaults."""


def _render(answer: Scripted) -> str:
    if isinstance(answer, BaseException):
        raise answer
    if isinstance(answer, BaseModel):
        return answer.model_dump_json()
    if isinstance(answer, dict):
        return json.dumps(answer, ensure_ascii=False)
    return answer


class OfflineBackend:
    """Answers from `rule`, then from `responses` in order, then from schema defaults; never touches a network.

    A scripted exception instance is raised instead of answered, which lets tests inject transport failures.
    """

    def __init__(
        self, responses: Iterable[Scripted] = (), rule: Rule | None = None, name: str = "offline"
    ) -> None:
        self.name = name
        self.rule = rule
        self._script = list(responses)
        self._lock = threading.Lock()
        self.requests: list[Request] = []

    def modes(self) -> tuple[WireMode, ...]:
        """No server to negotiate with: the schema reaches the model through the prompt only."""
        return ("prompt",)

    def remaining(self) -> int:
        """Scripted answers not consumed yet."""
        with self._lock:
            return len(self._script)

    def _answer(self, request: Request) -> str:
        if self.rule is not None:
            answer = self.rule(request.messages, request.schema)
            if answer is not None:
                return _render(answer)
        with self._lock:
            scripted = self._script.pop(0) if self._script else None
        if scripted is not None:
            return _render(scripted)
        if request.schema is not None:
            return json.dumps(example_from_schema(request.schema), ensure_ascii=False)
        user = next((m["content"] for m in reversed(request.messages) if m["role"] == "user"), "")
        return f"(offline) {user[:200]}"

    async def acomplete(self, request: Request) -> Completion:
        """Answer immediately; token counts are estimates from text length."""
        with self._lock:
            self.requests.append(request)
        text = self._answer(request)
        prompt = sum(estimate_tokens(m["content"]) for m in request.messages)
        return Completion(
            text=text, prompt_tokens=prompt, completion_tokens=estimate_tokens(text), model=self.name
        )
