"""`psychoagent llm ...`: check that a model answers structured calls through the whole pipeline."""

from __future__ import annotations

import json
import time

import typer
from pydantic import BaseModel, Field

from psychoagent.cli.errors import fail
from psychoagent.llm.config import TIMEOUT_ENV
from psychoagent.llm.factory import SPEC_HELP

app = typer.Typer(help="LLM backends: check an endpoint, the bundled local model or the offline model.")


class CheckAnswer(BaseModel):
    """The object `llm check` asks for: a sentiment rating of a fixed sentence."""

    sentiment: str = Field(description="one word: positive, negative or neutral", max_length=16)
    valence: int = Field(description="-3 (very negative) to 3 (very positive)", ge=-3, le=3)
    reason: str = Field(description="a short reason", max_length=120)


@app.callback()
def _group() -> None:
    """LLM backends: check an endpoint, the bundled local model or the offline model."""


@app.command()
def check(
    llm: str = typer.Option("offline", "--llm", help=SPEC_HELP),
    max_tokens: int = typer.Option(96, help="generation limit for the answer"),
    timeout: float = typer.Option(
        60.0, "--llm-timeout", "--timeout", envvar=TIMEOUT_ENV, min=0.001, help="per-call timeout in seconds"
    ),
) -> None:
    """Make one structured call and print the latency, the outcome and the parsed object.

    Exits 1 unless the outcome is ok or repaired (a fallback or a retry means the model cannot be relied on)."""
    from psychoagent.llm.config import LLMConfig, Sampling
    from psychoagent.llm.factory import get_model

    config = LLMConfig.from_env(timeout_s=timeout, sampling=Sampling(max_tokens=max_tokens))
    try:
        model = get_model(llm, config)
    except Exception as exc:
        fail(str(exc))
    prompt = [
        {"role": "system", "content": "You rate the sentiment of a sentence."},
        {"role": "user", "content": "Sentence: 'The project shipped on time and the client was delighted.'"},
    ]
    start = time.perf_counter()
    answer = model.structured(
        prompt,
        CheckAnswer,
        purpose="check",
        fallback=lambda reason: CheckAnswer(
            sentiment="neutral", valence=0, reason=f"fallback: {reason}"[:120]
        ),
    )
    latency = time.perf_counter() - start
    outcomes = {k: v for k, v in model.usage.outcomes("check").items() if v}
    total = model.usage.to_dict()["total"]
    typer.echo(f"model: {model.name} (structured mode: {model.structured_mode})")
    typer.echo(f"latency: {latency:.3f} s, outcome: {', '.join(outcomes)}")
    typer.echo(f"tokens: prompt {total['prompt_tokens']}, completion {total['completion_tokens']}")
    typer.echo(json.dumps(answer.model_dump(), ensure_ascii=False, indent=2))
    model.close()
    if not set(outcomes) <= {"ok", "repaired"}:
        typer.echo(f"error: {model.name} did not give a valid answer ({answer.reason})", err=True)
        raise typer.Exit(1)
