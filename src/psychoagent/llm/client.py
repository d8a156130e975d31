"""`LLMClient`: the one path every LLM call takes — cache, rate limit, retries, structured output, accounting."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from psychoagent.llm.accounting import Outcome, Usage
from psychoagent.llm.base import (
    Backend,
    CacheMissError,
    Completion,
    LLMError,
    Message,
    ModeRejectedError,
    Prompt,
    Request,
    StructuredOutputError,
    TransientLLMError,
    WireMode,
    as_messages,
)
from psychoagent.llm.cache import ResponseCache
from psychoagent.llm.concurrency import RateLimiter, run_sync
from psychoagent.llm.config import LLMConfig, Sampling
from psychoagent.llm.schema import (
    clamp_out_of_range,
    parse_repaired,
    parse_strict,
    prepare_schema,
    schema_instructions,
    short_error,
)

log = logging.getLogger("psychoagent.llm")
T = TypeVar("T", bound=BaseModel)


@lru_cache(maxsize=256)
def _schema_for(output: type[BaseModel], max_enum_range: int) -> dict[str, Any]:
    return prepare_schema(output, max_enum_range)


ENFORCING: tuple[WireMode, ...] = ("grammar", "json_schema")
"""Modes in which the backend itself holds the answer to the schema, so the prompt can show only its outline."""


def _with_instructions(
    messages: tuple[Message, ...], schema: dict[str, Any], compact: bool = False
) -> tuple[Message, ...]:
    """Append the JSON instructions to the system message (or add one); every mode gets them, small models need them."""
    hint = schema_instructions(schema, compact=compact)
    if messages[0]["role"] == "system":
        return ({"role": "system", "content": messages[0]["content"] + "\n\n" + hint}, *messages[1:])
    return ({"role": "system", "content": hint}, *messages)


class LLMClient:
    """Implements `LanguageModel` on top of any `Backend`; see `structured` for the guarantees."""

    def __init__(
        self,
        backend: Backend,
        config: LLMConfig | None = None,
        cache: ResponseCache | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.backend = backend
        self.config = config or LLMConfig()
        if cache is None and self.config.cache.mode != "off":
            cache = ResponseCache(self.config.cache.path, self.config.cache.mode)
        self.cache = cache
        self.usage = usage or Usage()
        self._limiter = RateLimiter(self.config.rate_limit_per_s)
        self._sems: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        ladder = list(backend.modes())
        wanted = self.config.structured.mode
        if wanted == "prompt":
            ladder = ["prompt"]
        elif wanted != "auto" and wanted in ladder:
            ladder = ladder[ladder.index(wanted) :]
        self._ladder: list[WireMode] = ladder or ["prompt"]
        self._mode_lock = threading.Lock()

    @property
    def name(self) -> str:
        """The model's identity in cache keys and logs."""
        return self.backend.name

    @property
    def structured_mode(self) -> WireMode:
        """The structured mode currently used (it steps down once a server rejects one)."""
        return self._ladder[0]

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._sems.get(loop)
        if sem is None:
            sem = self._sems[loop] = asyncio.Semaphore(self.config.concurrency)
        return sem

    def _step_down(self, rejected: WireMode, reason: str) -> bool:
        """Drop a rejected mode for the rest of the run; False when there is nothing left to try."""
        with self._mode_lock:
            if self._ladder[0] != rejected:
                return True  # another call already stepped down
            if len(self._ladder) == 1:
                return False
            self._ladder.pop(0)
            log.warning(
                "%s rejected structured mode %s (%s); using %s", self.name, rejected, reason, self._ladder[0]
            )
            return True

    async def _send(self, request: Request, purpose: str, backoff: bool = True) -> Completion:
        """One generation: rate limit, concurrency bound, per-call timeout, mode step-down, transport retries
        (`backoff=False`: retried at once, so all tries end within attempts x timeout)."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.retry.attempts),
            wait=wait_exponential(
                multiplier=self.config.retry.backoff_initial_s if backoff else 0.0,
                max=self.config.retry.backoff_max_s if backoff else 0.0,
            ),
            retry=retry_if_exception_type(TransientLLMError),
            before_sleep=lambda _state: self.usage.retry(purpose),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                while True:
                    mode = self._ladder[0] if request.schema is not None else "text"
                    wire = replace(request, mode=mode)
                    await self._limiter.wait()
                    try:
                        async with self._semaphore():
                            return await asyncio.wait_for(self.backend.acomplete(wire), self.config.timeout_s)
                    except TimeoutError as exc:
                        raise TransientLLMError(
                            f"{self.name}: no answer within {self.config.timeout_s} s"
                        ) from exc
                    except ModeRejectedError as exc:
                        if not self._step_down(mode, str(exc)):
                            raise LLMError(str(exc)) from exc
        raise AssertionError("unreachable: tenacity re-raises the last error")

    async def _generate(self, request: Request, purpose: str) -> Completion:
        """Serve from the cache when allowed, else from the backend (and record it)."""
        if self.cache is not None:
            hit = self.cache.get(self.name, request, purpose)
            if hit is not None:
                self.usage.request(purpose, hit.prompt_tokens, hit.completion_tokens, cached=True)
                return hit
        completion = await self._send(request, purpose)
        if self.cache is not None:
            self.cache.put(self.name, request, completion)
        self.usage.request(purpose, completion.prompt_tokens, completion.completion_tokens, cached=False,
                           reused=completion.reused_tokens)  # fmt: skip
        return completion

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
            text = (await self._generate(request, purpose)).text
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
        repaired = False
        try:
            data = parse_strict(text)
        except ValueError:
            try:
                data = parse_repaired(text)
                repaired = True
            except Exception as exc:  # json-repair may raise anything on pathological input
                return None, False, short_error(exc)
        try:
            return output.model_validate(data), repaired, ""
        except ValidationError as exc:
            if self.config.structured.clamp_numbers:
                clamped, changed = clamp_out_of_range(data, exc, output)
                if changed:
                    try:
                        return output.model_validate(clamped), True, ""
                    except ValidationError as exc2:
                        return None, False, short_error(exc2)
            return None, False, short_error(exc) if text.strip() else "empty answer"

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
        schema = _schema_for(output, self.config.structured.max_enum_range)
        hint = self.config.structured.hint
        compact = hint == "compact" or (hint == "auto" and self.structured_mode in ENFORCING)
        convo = _with_instructions(as_messages(messages), schema, compact=compact)
        sampling = self._sampling(sampling)
        reason = ""
        try:
            for round_ in range(self.config.structured.repair_rounds + 1):
                completion = await self._generate(Request(convo, schema, sampling), purpose)
                obj, repaired, reason = self.parse(completion.text, output)
                if obj is not None:
                    outcome: Outcome = "retried" if round_ else ("repaired" if repaired else "ok")
                    self._finish(purpose, outcome, start, output, reason="")
                    return obj
                convo = (
                    *convo,
                    {"role": "assistant", "content": completion.text[:2000]},
                    {
                        "role": "user",
                        "content": f"That answer was invalid: {reason}. Reply with only the corrected JSON object.",
                    },
                )
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
        """A batch of structured calls run concurrently (bounded by `config.concurrency`), results in order."""
        return list(
            await asyncio.gather(
                *(
                    self.astructured(p, output, purpose=purpose, fallback=fallback, sampling=sampling)
                    for p in prompts
                )
            )
        )

    def complete(
        self,
        messages: Prompt,
        *,
        purpose: str = "general",
        sampling: Sampling | None = None,
        fallback: str | None = None,
    ) -> str:
        """Sync `acomplete`."""
        return run_sync(self.acomplete(messages, purpose=purpose, sampling=sampling, fallback=fallback))

    def structured(
        self,
        messages: Prompt,
        output: type[T],
        *,
        purpose: str = "general",
        fallback: T | Callable[[str], T] | None = None,
        sampling: Sampling | None = None,
    ) -> T:
        """Sync `astructured`."""
        return run_sync(
            self.astructured(messages, output, purpose=purpose, fallback=fallback, sampling=sampling)
        )

    def structured_many(
        self,
        prompts: Sequence[Prompt],
        output: type[T],
        *,
        purpose: str = "general",
        fallback: T | Callable[[str], T] | None = None,
        sampling: Sampling | None = None,
    ) -> list[T]:
        """Sync `astructured_many` (one batch, e.g. all decisions of a simulation tick)."""
        return run_sync(
            self.astructured_many(prompts, output, purpose=purpose, fallback=fallback, sampling=sampling)
        )

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
            run_sync(self._send(request, "probe", backoff=False))
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
