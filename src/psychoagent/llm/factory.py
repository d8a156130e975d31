"""`get_model(spec)`: the one way subsystems and the CLI turn `--llm offline|local|URL[#model]` into a client."""

from __future__ import annotations

from urllib.parse import urldefrag

from psychoagent.llm.client import LLMClient
from psychoagent.llm.config import LLMConfig, LocalModelConfig

SPEC_HELP = "offline | local | local:PATH.gguf | env | http(s)://HOST/v1[#MODEL]"


def get_model(spec: str = "offline", config: LLMConfig | None = None) -> LLMClient:
    """Build an `LLMClient` from a spec: offline (deterministic, no model), local (bundled SmolLM2 in process),
    local:PATH (another GGUF), env (endpoint from PSYCHOAGENT_LLM_* / OPENAI_* variables) or an endpoint URL.

    Settings not given by the spec come from `config`, else from the environment (`LLMConfig.from_env`).
    """
    spec = spec.strip()
    config = config or LLMConfig.from_env()
    if spec == "offline":
        from psychoagent.llm.offline import OfflineBackend

        return LLMClient(OfflineBackend(), config)
    if spec == "local" or spec.startswith("local:"):
        from psychoagent.llm.local import LocalBackend

        local = config.local
        if spec.startswith("local:"):
            local = LocalModelConfig(**(local.model_dump() | {"model_path": spec.split(":", 1)[1]}))
        # one llama thread generates one call at a time: with more in flight, queued calls spend their timeout
        # waiting and time out (50 households x 3 months timed out every call at concurrency 8)
        update: dict[str, object] = {"concurrency": 1}
        if "timeout_s" not in config.model_fields_set:
            update["timeout_s"] = local.timeout_s  # a generation cannot be cancelled: wait for it
        return LLMClient(LocalBackend(local), config.model_copy(update=update))
    if spec == "env" or spec.startswith(("http://", "https://")):
        from psychoagent.llm.openai_compat import OpenAIBackend

        if spec == "env":
            if not config.base_url:
                raise ValueError(
                    "--llm env: set PSYCHOAGENT_LLM_BASE_URL (or OPENAI_BASE_URL) to the endpoint"
                )
            url, model = config.base_url, config.model
        else:
            url, fragment = urldefrag(spec)
            model = fragment or config.model
        backend = OpenAIBackend(url, model=model, api_key=config.api_key, timeout_s=config.timeout_s)
        return LLMClient(backend, config)
    raise ValueError(f"--llm: unknown model spec {spec!r}; allowed: {SPEC_HELP}")
