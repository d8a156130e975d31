"""Deterministic model for tests and runs without an LLM: a rule callback, scripted responses, rules per schema
read from the prompt's data line, or schema defaults.

A prompt builder that wants the offline model to answer meaningfully ends its last user message with one line
`Data: {json}` (`data_line`); a rule registered for the schema's title (`register_schema_rule`) reads that
line's fields and nothing else, so text quoted elsewhere in the prompt (news, memories) is never obeyed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from psychoagent.llm.contracts import Completion, Message, Request, WireMode
from psychoagent.llm.request import estimate_tokens
from psychoagent.llm.schema import example_from_schema

Scripted = str | dict[str, Any] | BaseModel | BaseException
Rule = Callable[[tuple[Message, ...], dict[str, Any] | None], Scripted | None]
"""Gets (messages, schema or None); returns an answer, or None to fall through to the script and defaults."""
SchemaRule = Callable[[dict[str, Any]], Scripted | None]
"""Gets the prompt's data fields; returns an answer for its schema, or None to fall through to the defaults."""

DATA_PREFIX = "Data: "
_SCHEMA_RULES: dict[str, SchemaRule] = {}


def data_line(fields: dict[str, Any]) -> str:
    """The line that carries a prompt's structured fields (one JSON object, strings escaped)."""
    return DATA_PREFIX + json.dumps(fields, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def prompt_data(messages: tuple[Message, ...]) -> dict[str, Any] | None:
    """The fields of the last user message's final line when it is a data line, else None.

    Only the final line counts: a data line quoted earlier in the prompt (inside news or a memory) is ignored.
    """
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    last = user.rstrip().rsplit("\n", 1)[-1]
    if not last.startswith(DATA_PREFIX):
        return None
    try:
        data = json.loads(last[len(DATA_PREFIX) :])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def register_schema_rule(title: str, rule: SchemaRule) -> None:
    """Let offline models answer the schema whose title (pydantic model name) is `title` with `rule`."""
    if not title:
        raise ValueError("register_schema_rule: the schema title must be a non-empty string")
    _SCHEMA_RULES[title] = rule


def schema_rule_names() -> list[str]:
    """Schema titles that have an offline rule, sorted."""
    return sorted(_SCHEMA_RULES)


def _render(answer: Scripted) -> str:
    if isinstance(answer, BaseException):
        raise answer
    if isinstance(answer, BaseModel):
        return answer.model_dump_json()
    if isinstance(answer, dict):
        return json.dumps(answer, ensure_ascii=False)
    return answer


class OfflineBackend:
    """Answers from `rule`, then from `responses` in order, then from the schema's registered rule (when the
    prompt has a data line), then from schema defaults; never touches a network.

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
            schema_rule = _SCHEMA_RULES.get(str(request.schema.get("title", "")))
            data = prompt_data(request.messages) if schema_rule is not None else None
            if schema_rule is not None and data is not None:
                answer = schema_rule(data)
                if answer is not None:
                    return _render(answer)
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
