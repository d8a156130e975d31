"""Response cache: hits, record/replay with no model present, clear replay misses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from psychoagent.llm import CacheConfig, CacheMissError, LLMClient, OfflineBackend, Sampling
from psychoagent.llm.contracts import Completion, Request, WireMode

from .conftest import FALLBACK, Rating, fast_config


class NoModel:
    """A backend that must never be reached: replay has to serve everything."""

    name = "offline"

    def modes(self) -> tuple[WireMode, ...]:
        return ("prompt",)

    async def acomplete(self, request: Request) -> Completion:
        raise AssertionError("replay reached the model")


def answers(n: int) -> list[str]:
    return [json.dumps({"label": f"a{i}", "valence": i % 3, "confidence": 0.5}) for i in range(n)]


def test_second_identical_call_is_served_from_cache(tmp_path: Path) -> None:
    backend = OfflineBackend(answers(5))
    model = LLMClient(backend, fast_config(cache=CacheConfig(mode="read-write", path=str(tmp_path / "c.db"))))
    first = model.structured("same question", Rating, purpose="appraisal")
    second = model.structured("same question", Rating, purpose="appraisal")
    assert first == second and len(backend.requests) == 1
    assert model.cache is not None and model.cache.stats()["hits"] == 1
    assert model.usage.to_dict()["purposes"]["appraisal"]["cache_hits"] == 1
    other = model.structured("same question", Rating, sampling=Sampling(temperature=0.7))
    assert other != first and len(backend.requests) == 2, "sampling parameters are part of the key"


def test_recorded_run_replays_exactly_without_a_model(tmp_path: Path) -> None:
    path = str(tmp_path / "rec.db")
    script = ["garbage", *answers(4)]  # the first question needs a repair round: it must replay too
    recorder = LLMClient(OfflineBackend(script), fast_config(cache=CacheConfig(mode="record", path=path)))
    prompts = [f"event {i}" for i in range(4)]
    recorded = [recorder.structured(p, Rating, purpose="decision", fallback=FALLBACK) for p in prompts]
    recorder.close()
    player = LLMClient(NoModel(), fast_config(cache=CacheConfig(mode="replay", path=path)))
    replayed = [player.structured(p, Rating, purpose="decision", fallback=FALLBACK) for p in prompts]
    assert replayed == recorded
    assert player.usage.outcomes("decision") == recorder.usage.outcomes("decision")


def test_replay_miss_fails_clearly_even_with_a_fallback(tmp_path: Path) -> None:
    player = LLMClient(NoModel(), fast_config(cache=CacheConfig(mode="replay", path=str(tmp_path / "e.db"))))
    with pytest.raises(CacheMissError, match=r"replay: no recorded response .* purpose 'appraisal'"):
        player.structured("never recorded", Rating, purpose="appraisal", fallback=FALLBACK)
    with pytest.raises(CacheMissError, match="never recorded either"):
        player.complete("never recorded either")
