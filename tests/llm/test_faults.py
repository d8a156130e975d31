"""Fault injection against a fake OpenAI-compatible server on loopback: every failure ends valid or counted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from psychoagent.llm import LLMClient, StructuredConfig
from psychoagent.llm.openai_compat import OpenAIBackend

from .conftest import FALLBACK, FakeServer, Rating, fast_config

VALID = json.dumps({"label": "ok", "valence": 1, "confidence": 0.5})


def remote(server: FakeServer, mode: str = "json_object", **config: Any) -> LLMClient:
    cfg = fast_config(structured=StructuredConfig(mode=mode), **config)  # type: ignore[arg-type]
    return LLMClient(OpenAIBackend(server.url, model="fake", timeout_s=cfg.timeout_s), cfg)


@pytest.mark.parametrize(
    ("steps", "outcome", "requests"),
    [
        ([("content", VALID)], "ok", 1),
        ([("status", 500), ("content", VALID)], "ok", 2),
        ([("status", 429), ("status", 503), ("content", VALID)], "ok", 3),
        ([("status", 500)], "fallback", 3),  # transport retries are bounded by RetryConfig.attempts
        ([("status", 401)], "fallback", 1),  # not retryable
        ([("sleep", 1.0)], "fallback", 3),  # per-call timeout, retried, then fallback
        ([("content", '{"label": "ok", "valence": 1, "confidence": 0.5')], "repaired", 1),
        ([("content", '{"label": "ok", "valence": 1000, "confidence": -2}')], "repaired", 1),
        ([("content", '{"label": 5}'), ("content", VALID)], "retried", 2),
        ([("content", "")], "fallback", 2),
        ([("content", None)], "fallback", 2),
        ([("content", '{"label": "x", "valence": "many", "confidence": 0.5}')], "fallback", 2),
        ([("raw", "{this is not a response")], "fallback", 3),  # garbled body: retried as transient
        ([("raw", "{broken"), ("content", VALID)], "ok", 2),
        ([("raw", '{"choices": []}')], "fallback", 1),
    ],
)
def test_faults_end_valid_or_counted(
    fake_server: FakeServer, steps: list[tuple[str, Any]], outcome: str, requests: int
) -> None:
    fake_server.script(*steps)
    model = remote(fake_server, timeout_s=0.3)
    result = model.structured("rate this", Rating, purpose="appraisal", fallback=FALLBACK)
    assert isinstance(result, Rating)
    assert (result == FALLBACK) == (outcome == "fallback")
    counted = model.usage.outcomes("appraisal")
    assert counted[outcome] == 1 and sum(counted.values()) == 1
    assert len(fake_server.requests) == requests


def test_request_carries_schema_and_sampling(fake_server: FakeServer) -> None:
    fake_server.script(("content", VALID))
    remote(fake_server).structured("rate", Rating, purpose="appraisal")
    body = fake_server.requests[0]
    assert body["response_format"]["type"] == "json_object"
    assert body["response_format"]["schema"]["properties"]["valence"]["enum"] == [-3, -2, -1, 0, 1, 2, 3]
    assert body["max_tokens"] == 48 and body["temperature"] == 0.0 and body["model"] == "fake"


@pytest.mark.parametrize("status", [400, 500])
def test_auto_mode_steps_down_when_json_schema_is_rejected(fake_server: FakeServer, status: int) -> None:
    fake_server.script(("reject_schema", status))
    model = remote(fake_server, mode="auto")
    assert model.structured("rate", Rating, fallback=FALLBACK).label == "fine"
    assert [r["response_format"]["type"] for r in fake_server.requests] == ["json_schema", "json_object"]
    assert model.structured_mode == "json_object"
    model.structured("again", Rating, fallback=FALLBACK)
    assert fake_server.requests[-1]["response_format"]["type"] == "json_object", "the working mode is kept"


def test_prompt_mode_sends_no_response_format(fake_server: FakeServer) -> None:
    fake_server.script(("content", f"Here you go:\n```json\n{VALID}\n```"))
    model = remote(fake_server, mode="prompt")
    assert model.structured("rate", Rating).label == "ok"
    assert "response_format" not in fake_server.requests[0]
    assert model.usage.outcomes()["ok"] == 1


def test_text_call_fallback_and_tokens(fake_server: FakeServer) -> None:
    fake_server.script(("content", "hello there"))
    model = remote(fake_server)
    assert model.complete("hi", purpose="reflection") == "hello there"
    assert model.usage.to_dict()["purposes"]["reflection"]["completion_tokens"] == 7
    fake_server.script(("status", 503))
    assert model.complete("hi", purpose="reflection", fallback="(none)") == "(none)"
