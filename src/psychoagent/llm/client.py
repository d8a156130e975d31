"""`LLMClient`: the one path every LLM call takes. Each call is written once, as an async method over the
`Transport` it extends (cache, rate limit, retries, request accounting); its blocking face is made by `sync_face`."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from psychoagent.llm.accounting import Outcome, Usage
from psychoagent.llm.cache import ResponseCache
from psychoagent.llm.concurrency import run_sync, sync_face
from psychoagent.llm.config import LLMConfig, Sampling
from psychoagent.llm.contracts import (
    Backend,
    CacheMissError,
    LLMError,
    Prompt,
    Request,
    StructuredOutputError,
)
from psychoagent.llm.request import as_messages, structured_prompt, with_feedback
from psychoagent.llm.schema import parse_answer
from psychoagent.llm.transport import Transport

log = logging.getLogger("psychoagent.llm")
T = TypeVar("T", bound=BaseModel)


class LLMClient(Transport):
    """Implements `LanguageModel` on top of any `Backend`: the calls over the `Transport` that sends their requests
    (backend, config, cache and usage are its attributes); see `astructured` for the guarantees."""

    def __init__(
        self,
        backend: Backend,
        config: LLMConfig | None = None,
        cache: ResponseCache | None = None,
        usage: Usage | None = None,
    ) -> None:
        config = config or LLMConfig()
        if cache is None and config.cache.mode != "off":
            cache = ResponseCache(config.cache.path, config.cache.mode)
        super().__init__(backend, config, cache, usage or Usage())

    def _sampling(self, sampling: Sampling | None) -> Sampling:
        return sampling or self.config.sampling

    async def acomplete(
        self,
        messages: Prompt,
        *,
        purpose: str = "general",
        sampling: Sampling | None = None,
        fallback: str | None = None,
    ) -> str:
        """Plain text answer; with a `fallback` a failed call returns it (counted) instead of raising."""
        start = time.perf_counter()
        request = Request(as_messages(messages), None, self._sampling(sampling))
        try:
            text = (await self.generate(request, purpose)).text
        except CacheMissError:
            raise
        except LLMError as exc:
            if fallback is None:
                self.usage.call(purpose, "error", time.perf_counter() - start)
                raise
            log.warning("llm %s: %s; text fallback used", purpose, exc)
            self.usage.call(purpose, "fallback", time.perf_counter() - start)
            return fallback
        self.usage.call(purpose, "text", time.perf_counter() - start)
        return text

    def parse(self, text: str, output: type[T]) -> tuple[T | None, bool, str]:
        """Tolerant parse + validation + repair: (object or None, whether repair was needed, error text)."""
        return parse_answer(text, output, clamp=self.config.structured.clamp_numbers)

    async def astructured(
        self,
        messages: Prompt,
        output: type[T],
        *,
        purpose: str = "general",
        fallback: T | Callable[[str], T] | None = None,
        sampling: Sampling | None = None,
    ) -> T:
        """A validated `output`: constrained generation, tolerant parse, repair, bounded retry, then `fallback`.

        Never raises for bad model output or a failing server when a fallback is declared; a replay-mode cache
        miss always raises `CacheMissError` because it means the run diverged from the recording.
        """
        start = time.perf_counter()
        convo, schema = structured_prompt(messages, output, self.config.structured, self.structured_mode)
        sampling = self._sampling(sampling)
        reason = ""
        try:
            for round_ in range(self.config.structured.repair_rounds + 1):
                completion = await self.generate(Request(convo, schema, sampling), purpose)
                obj, repaired, reason = self.parse(completion.text, output)
                if obj is not None:
                    outcome: Outcome = "retried" if round_ else ("repaired" if repaired else "ok")
                    self._finish(purpose, outcome, start, output, reason="")
                    return obj
                convo = with_feedback(convo, completion.text, reason)
        except CacheMissError:
            self.usage.call(purpose, "error", time.perf_counter() - start)
            raise
        except LLMError as exc:
            reason = str(exc)
        if fallback is None:
            self._finish(purpose, "error", start, output, reason)
            raise StructuredOutputError(f"{purpose}: no valid {output.__name__} from {self.name}: {reason}")
        value = fallback(reason) if callable(fallback) and not isinstance(fallback, BaseModel) else fallback
        if not isinstance(value, output):
            raise TypeError(f"{purpose}: fallback must be a {output.__name__}, got {type(value).__name__}")
        self._finish(purpose, "fallback", start, output, reason)
        return value

    def _finish(
        self, purpose: str, outcome: Outcome, start: float, output: type[BaseModel], reason: str
    ) -> None:
        """Count a finished structured call and log it: quietly when it went well, louder the worse it went."""
        latency = time.perf_counter() - start
        self.usage.call(purpose, outcome, latency)
        level = (
            logging.DEBUG
            if outcome == "ok"
            else logging.INFO
            if outcome in ("repaired", "retried")
            else logging.WARNING
        )
        log.log(level, "llm %s %s -> %s in %.3f s %s", purpose, output.__name__, outcome, latency, reason)

    async def astructured_many(
        self,
        prompts: Sequence[Prompt],
        output: type[T],
        *,
        purpose: str = "general",
        fallback: T | Callable[[str], T] | None = None,
        sampling: Sampling | None = None,
    ) -> list[T]:
        """A batch of structured calls run concurrently (bounded by `config.concurrency`), results in order
        (sync: one batch, e.g. all decisions of a simulation tick)."""
        return list(
            await asyncio.gather(
                *(
                    self.astructured(p, output, purpose=purpose, fallback=fallback, sampling=sampling)
                    for p in prompts
                )
            )
        )

    complete = sync_face(acomplete)
    structured = sync_face(astructured)
    structured_many = sync_face(astructured_many)

    def probe(self) -> None:
        """One short generation with the configured timeout and tries (no waits between them: all end within
        attempts x timeout), outside the cache and the accounting; raises `LLMError` naming the cause when the
        model does not answer, so a run stops before it starts."""
        if self.cache is not None and self.cache.mode == "replay":
            return  # a replayed run needs no model
        request = Request(
            ({"role": "user", "content": "Reply with the word OK."},), None, Sampling(max_tokens=4, seed=0)
        )
        try:
            run_sync(self.send(request, "probe", backoff=False))
        except LLMError as exc:
            raise LLMError(
                f"{self.name}: no answer in {self.config.retry.attempts} tries of at most {self.config.timeout_s:g} s "
                f"each: {exc}"
            ) from exc

    def stats(self) -> dict[str, Any]:
        """Accounting per purpose plus cache hit/miss statistics and the structured mode in use."""
        data = self.usage.to_dict()
        data["model"] = self.name
        data["structured_mode"] = self.structured_mode
        data["cache"] = self.cache.stats() if self.cache is not None else None
        return data

    def write_usage(self, run_dir: str) -> str:
        """Write `stats()` to RUN_DIR/llm_usage.json; returns the path."""
        extra = {k: v for k, v in self.stats().items() if k not in ("purposes", "total")}
        return str(self.usage.write(run_dir, extra))

    def close(self) -> None:
        """Release the cache connection."""
        if self.cache is not None:
            self.cache.close()
