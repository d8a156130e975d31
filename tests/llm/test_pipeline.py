"""The structured-output pipeline with the offline model: outcomes, retries, fallbacks, batches, accounting."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from psychoagent.llm import (
    LanguageModel,
    LLMClient,
    OfflineBackend,
    StructuredConfig,
    StructuredOutputError,
    TransientLLMError,
    get_model,
)
from psychoagent.llm.contracts import Completion, Request, WireMode

from .conftest import FALLBACK, Rating, fast_config

VALID = {"label": "calm", "valence": 2, "confidence": 0.8}


def client(*responses: Any, **config: Any) -> tuple[LLMClient, OfflineBackend]:
    backend = OfflineBackend(responses)
    return LLMClient(backend, fast_config(**config)), backend


def test_client_satisfies_protocol() -> None:
    assert isinstance(get_model("offline"), LanguageModel)


def test_valid_answer_is_ok_and_schema_reaches_the_prompt() -> None:
    model, backend = client(json.dumps(VALID))
    assert model.structured("How does this feel?", Rating, purpose="appraisal") == Rating(**VALID)
    assert model.usage.outcomes("appraisal")["ok"] == 1
    system = backend.requests[0].messages[0]
    assert system["role"] == "system" and '"enum":[-3,-2,-1,0,1,2,3]' in system["content"]


@pytest.mark.parametrize(
    "raw",
    [
        '```json\n{"label": "calm", "valence": 2, "confidence": 0.8,}\n```',  # fence + trailing comma
        "{'label': 'calm', 'valence': 2, 'confidence': 0.8}",  # single quotes
        '{"label": "calm", "valence": 9, "confidence": 0.8}',  # out of range: clamped
    ],
)
def test_broken_answers_are_repaired_without_a_second_call(raw: str) -> None:
    model, backend = client(raw)
    out = model.structured("q", Rating, purpose="appraisal", fallback=FALLBACK)
    assert out.label == "calm" and -3 <= out.valence <= 3
    assert model.usage.outcomes()["repaired"] == 1 and len(backend.requests) == 1


def test_invalid_answer_is_retried_with_the_error_fed_back() -> None:
    model, backend = client('{"label": "calm", "valence": "very", "confidence": 0.5}', json.dumps(VALID))
    assert model.structured("q", Rating, purpose="decision") == Rating(**VALID)
    assert model.usage.outcomes("decision")["retried"] == 1
    feedback = backend.requests[1].messages[-1]["content"]
    assert feedback.startswith("That answer was invalid") and "valence" in feedback


def test_retries_are_bounded_then_fallback_is_counted() -> None:
    model, backend = client(
        "not json at all", "", "still nothing", structured=StructuredConfig(repair_rounds=1)
    )
    reasons: list[str] = []

    def build(reason: str) -> Rating:
        reasons.append(reason)
        return FALLBACK

    assert model.structured("q", Rating, purpose="fusion", fallback=build) == FALLBACK
    assert len(backend.requests) == 2, "one call plus one repair round"
    assert model.usage.outcomes("fusion")["fallback"] == 1 and reasons and reasons[0]


def test_without_fallback_failure_raises_clearly() -> None:
    model, _ = client("[]", "[]")
    with pytest.raises(StructuredOutputError, match="no valid Rating"):
        model.structured("q", Rating, purpose="reflection")
    assert model.usage.outcomes("reflection")["error"] == 1


def test_transient_errors_are_retried_with_bound() -> None:
    model, backend = client(TransientLLMError("429"), TransientLLMError("503"), json.dumps(VALID))
    assert model.structured("q", Rating, fallback=FALLBACK) == Rating(**VALID)
    assert model.usage.to_dict()["total"]["transport_retries"] == 2 and len(backend.requests) == 3
    model2, backend2 = client(*[TransientLLMError("down")] * 10)
    assert model2.structured("q", Rating, fallback=FALLBACK) == FALLBACK
    assert len(backend2.requests) == 3, "RetryConfig.attempts bounds the tries"


class SlowBackend:
    """Answers after a delay and tracks how many calls overlap."""

    name = "slow"

    def __init__(self, delay: float) -> None:
        self.delay, self.active, self.peak = delay, 0, 0

    def modes(self) -> tuple[WireMode, ...]:
        return ("prompt",)

    async def acomplete(self, request: Request) -> Completion:
        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(self.delay)
        self.active -= 1
        return Completion(text=json.dumps(VALID | {"label": request.messages[-1]["content"]}))


def test_batch_keeps_order_and_bounds_concurrency() -> None:
    backend = SlowBackend(0.02)
    model = LLMClient(backend, fast_config(concurrency=3))
    out = model.structured_many([f"p{i}" for i in range(10)], Rating, purpose="decision", fallback=FALLBACK)
    assert [r.label for r in out] == [f"p{i}" for i in range(10)]
    assert backend.peak == 3


def test_per_call_timeout_leads_to_fallback() -> None:
    model = LLMClient(SlowBackend(1.0), fast_config(timeout_s=0.05))
    start = time.perf_counter()
    assert model.structured("q", Rating, fallback=FALLBACK) == FALLBACK
    assert time.perf_counter() - start < 0.9 and model.usage.to_dict()["total"]["transport_retries"] == 2


def test_rate_limit_spaces_calls() -> None:
    model, _ = client(rate_limit_per_s=50.0)
    start = time.perf_counter()
    model.structured_many(["a"] * 6, Rating, fallback=FALLBACK)
    assert time.perf_counter() - start >= 5 / 50.0 * 0.9


def test_sync_api_works_inside_a_running_loop() -> None:
    model, _ = client(json.dumps(VALID))

    async def inner() -> Rating:
        return model.structured("q", Rating)

    assert asyncio.run(inner()) == Rating(**VALID)


def test_rule_callback_and_text_calls() -> None:
    backend = OfflineBackend(rule=lambda msgs, schema: VALID | {"label": "rule"} if schema else "pong")
    model = LLMClient(backend, fast_config())
    assert model.structured("q", Rating).label == "rule"
    assert model.complete("ping", purpose="reflection") == "pong"
    assert model.usage.outcomes("reflection")["text"] == 1


def test_usage_is_written_per_purpose(tmp_path: Any) -> None:
    model, _ = client(json.dumps(VALID), "garbage", "garbage")
    model.structured("q", Rating, purpose="appraisal")
    model.structured("q", Rating, purpose="decision", fallback=FALLBACK)
    data = json.loads((tmp_path / "llm_usage.json").read_text()) if model.write_usage(str(tmp_path)) else {}
    assert data["purposes"]["appraisal"]["outcomes"]["ok"] == 1
    assert data["purposes"]["decision"]["outcomes"]["fallback"] == 1
    assert data["total"]["requests"] == 3 and data["total"]["prompt_tokens"] > 0
    assert data["model"] == "offline" and data["cache"] is None


def test_get_model_rejects_unknown_specs() -> None:
    with pytest.raises(ValueError, match="allowed: offline"):
        get_model("gpt://nowhere")
    remote = get_model("http://127.0.0.1:9/v1#tiny")
    assert remote.name == "tiny" and remote.structured_mode == "json_schema"


def test_sync_call_from_inside_an_async_call_fails_clearly() -> None:
    inner_model, _ = client(json.dumps(VALID))

    def rule(messages: Any, schema: Any) -> Any:
        return inner_model.structured("nested", Rating)  # sync call on the loop that runs the outer call

    outer = LLMClient(OfflineBackend(rule=rule), fast_config())
    with pytest.raises(RuntimeError, match="await the a\\* method"):
        outer.structured("q", Rating)


def test_config_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PSYCHOAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PSYCHOAGENT_LLM_MODEL", "m1")
    monkeypatch.setenv("PSYCHOAGENT_LLM_STRUCTURED", "json_object")
    model = get_model("env")
    assert model.name == "m1" and model.structured_mode == "json_object"
    monkeypatch.setenv("PSYCHOAGENT_LLM_STRUCTURED", "xml")
    with pytest.raises(ValueError, match=r"(?s)PSYCHOAGENT_LLM_.*structured.mode.*json_object"):
        get_model("env")
