"""The real llama.cpp path with the bundled SmolLM2: over HTTP (llama_cpp.server) and in process."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from psychoagent.cli.llm import app
from psychoagent.llm import LLMConfig, Sampling, get_model

from .conftest import FALLBACK, Rating, fast_config

pytestmark = pytest.mark.integration

PROMPT = [
    {"role": "system", "content": "You rate how a sentence feels."},
    {"role": "user", "content": "Sentence: 'The shop raised prices again and I lost my job.'"},
]


def small_config() -> LLMConfig:
    return fast_config(timeout_s=60.0, sampling=Sampling(max_tokens=64))


def test_llama_server_through_openai_backend(llama_server: str) -> None:
    model = get_model(f"{llama_server}#smollm2", small_config())
    out = model.structured(PROMPT, Rating, purpose="appraisal", fallback=FALLBACK)
    assert isinstance(out, Rating)
    counted = model.usage.outcomes("appraisal")
    assert sum(counted.values()) == 1 and counted["error"] == 0
    assert counted["fallback"] == 0, f"a schema-constrained answer should validate: {model.stats()}"
    # llama.cpp server answers 500 to response_format json_schema; auto mode must have stepped down
    assert model.structured_mode in ("json_schema", "json_object")
    total = model.usage.to_dict()["total"]
    assert total["completion_tokens"] > 0 and total["prompt_tokens"] > 0
    batch = model.structured_many([PROMPT, PROMPT], Rating, purpose="decision", fallback=FALLBACK)
    assert all(isinstance(r, Rating) for r in batch)


def test_local_backend_in_process(smollm2_path: str) -> None:
    model = get_model(f"local:{smollm2_path}", small_config())
    assert model.structured_mode == "grammar"
    assert model.config.concurrency == 1  # one llama thread: queued calls would spend their timeout waiting
    out = model.structured(PROMPT, Rating, purpose="appraisal", fallback=FALLBACK)
    assert isinstance(out, Rating) and -3 <= out.valence <= 3
    counted = model.usage.outcomes("appraisal")
    assert counted["fallback"] == 0 and sum(counted.values()) == 1, model.stats()
    assert model.complete("Say hello.", sampling=Sampling(max_tokens=8))


def test_cli_check_local_prints_a_parsed_object(smollm2_path: str) -> None:
    result = CliRunner().invoke(app, ["check", "--llm", "local", "--max-tokens", "64"])
    assert result.exit_code == 0, result.output
    assert "latency:" in result.output and '"valence":' in result.output
