"""The language model a cognitive policy's steps ask, and the face a policy shows for it (`UsesModel`).

The `llm` and `econagent` variants share one `ModelSeat` between their decide and reflect steps; `AsksModel` gives
the policy `client`, `use_llm` and `usage` from it, so the runner installs the model named by `--llm`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from psychoagent.forward import Forward
from psychoagent.llm.offline import OfflineBackend


class ModelSeat:
    """Which model is asked: a client (built from `spec` on first use when none is given)."""

    def __init__(self, client: Any = None) -> None:
        self.client = client
        self.spec = "offline"

    def use(self, spec: str | None, cache_mode: str = "off", cache_path: str | Path | None = None) -> None:
        """Choose the model ('offline', 'local', 'local:PATH', 'env' or a URL) and its response cache."""
        from psychoagent.llm import CacheConfig, LLMConfig, get_model

        config = LLMConfig.from_env()
        if cache_mode != "off":
            config = config.model_copy(
                update={"cache": CacheConfig(mode=cache_mode, path=str(cache_path or "llm_cache.db"))}
            )
        self.spec = spec or "offline"
        self.client = get_model(self.spec, config)

    def ready(self) -> Any:
        """The client, built from the spec when none was installed yet."""
        if self.client is None:
            self.use(self.spec)
        return self.client

    def offline(self) -> bool:
        """Whether the client is the offline model (whose rules read the data line)."""
        return isinstance(getattr(self.client, "backend", None), OfflineBackend)

    def usage(self) -> dict[str, Any]:
        """The client's accounting (calls, tokens, outcomes per purpose, cache statistics)."""
        return self.client.stats() if self.client is not None else {}


class AsksModel:
    """A policy whose steps ask the model in its `seat`: `client`, `use_llm` and `usage` (the `UsesModel` face)."""

    seat: ModelSeat

    client = Forward[Any]("seat", writable=True)

    def use_llm(
        self, spec: str | None, cache_mode: str = "off", cache_path: str | Path | None = None
    ) -> None:
        """Choose the model ('offline', 'local', 'local:PATH', 'env' or a URL) and its response cache."""
        self.seat.use(spec, cache_mode, cache_path)

    def usage(self) -> dict[str, Any]:
        """The client's accounting (calls, tokens, outcomes per purpose, cache statistics)."""
        return self.seat.usage()
