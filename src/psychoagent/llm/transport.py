"""`Transport`: how one request reaches a backend — cache, rate limit, concurrency bound, per-call timeout,
structured-mode step-down, transport retries and the per-request accounting. `LLMClient` adds the calls on top."""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from dataclasses import replace

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from psychoagent.llm.accounting import Usage
from psychoagent.llm.cache import ResponseCache
from psychoagent.llm.concurrency import RateLimiter
from psychoagent.llm.config import LLMConfig
from psychoagent.llm.contracts import (
    Backend,
    Completion,
    LLMError,
    ModeRejectedError,
    Request,
    TransientLLMError,
    WireMode,
)

log = logging.getLogger("psychoagent.llm")


def mode_ladder(backend: Backend, wanted: str) -> list[WireMode]:
    """The structured modes to try, best first: the backend's own, cut to start at the configured one."""
    ladder: list[WireMode] = list(backend.modes())
    if wanted == "prompt":
        ladder = ["prompt"]
    elif wanted != "auto" and wanted in ladder:
        ladder = ladder[ladder.index(wanted) :]
    return ladder or ["prompt"]


class Transport:
    """Sends requests to one backend under one config; thread-safe and usable from any event loop."""

    def __init__(
        self, backend: Backend, config: LLMConfig, cache: ResponseCache | None, usage: Usage
    ) -> None:
        self.backend = backend
        self.config = config
        self.cache = cache
        self.usage = usage
        self._limiter = RateLimiter(config.rate_limit_per_s)
        self._sems: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        self._ladder = mode_ladder(backend, config.structured.mode)
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
        """The concurrency bound of the running event loop (one semaphore a loop)."""
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

    async def send(self, request: Request, purpose: str, backoff: bool = True) -> Completion:
        """One generation: rate limit, concurrency bound, per-call timeout, mode step-down, transport retries
        (`backoff=False`: retried at once, so all tries end within attempts x timeout)."""
        retry = self.config.retry
        retrying = AsyncRetrying(
            stop=stop_after_attempt(retry.attempts),
            wait=wait_exponential(
                multiplier=retry.backoff_initial_s if backoff else 0.0,
                max=retry.backoff_max_s if backoff else 0.0,
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

    async def generate(self, request: Request, purpose: str) -> Completion:
        """Serve from the cache when allowed, else from the backend (and record it); counts the request."""
        if self.cache is not None:
            hit = self.cache.get(self.name, request, purpose)
            if hit is not None:
                self.usage.request(purpose, hit.prompt_tokens, hit.completion_tokens, cached=True)
                return hit
        completion = await self.send(request, purpose)
        if self.cache is not None:
            self.cache.put(self.name, request, completion)
        self.usage.request(purpose, completion.prompt_tokens, completion.completion_tokens, cached=False,
                           reused=completion.reused_tokens)  # fmt: skip
        return completion
