"""Decision policies by name: the registry behind `make_policy` and `psychoagent simulate --policy`, and the
public names of the decision types and rule policies (`from psychoagent.econ.policies import Intent, ...`).

The rule policies live in `econ.baselines`, the decision data in `econ.intents`, the protocols in
`econ.contracts`; the cognitive policies (memory, persona, LLM) in `econ.cognitive`, imported only when asked for.
Register a new one with `register_policy`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from psychoagent.econ.baselines import (
    CompositePolicy,
    PerAgentPolicy,
    PersonaHeuristicPolicy,
    VectorPolicy,
    rate_factor,
)
from psychoagent.econ.config import PolicyConfig
from psychoagent.econ.contracts import Learner, Policy
from psychoagent.econ.intents import AgentState, HouseholdView, Intent, IntentBatch, Outcomes

__all__ = [
    "AgentState", "CompositePolicy", "HouseholdView", "Intent", "IntentBatch", "Learner", "Outcomes",
    "PerAgentPolicy", "PersonaHeuristicPolicy", "Policy", "PolicyFactory", "VectorPolicy", "make_policy",
    "policy_names", "rate_factor", "register_policy",
]  # fmt: skip

PolicyFactory = Callable[[PolicyConfig], Policy]


def _cognitive(cfg: PolicyConfig) -> Policy:
    from psychoagent.econ.cognitive.policy import CognitivePolicy  # lazy: memory and agent modules

    return CognitivePolicy(cfg)


def _llm(cfg: PolicyConfig) -> Policy:
    from psychoagent.econ.cognitive.llm_policy import LLMPolicy  # lazy: the LLM layer

    return LLMPolicy(cfg)


def _econagent(cfg: PolicyConfig) -> Policy:
    from psychoagent.econ.cognitive.econagent import EconAgentPolicy  # lazy: the LLM layer

    return EconAgentPolicy(cfg)


_REGISTRY: dict[str, PolicyFactory] = {
    "composite": CompositePolicy,
    "persona": PersonaHeuristicPolicy,
    "cognitive": _cognitive,
    "llm": _llm,
    "econagent": _econagent,
}


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make `name` available to `make_policy` and `psychoagent simulate --policy`."""
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"policy names are words like 'my-policy', got {name!r}")
    _REGISTRY[name] = factory


def policy_names() -> list[str]:
    """Registered policy names, sorted."""
    return sorted(_REGISTRY)


def make_policy(name: str, cfg: PolicyConfig | None = None) -> Policy:
    """A policy by registered name, or by import path 'package.module:Class' (called with the config)."""
    cfg = cfg or PolicyConfig()
    if name in _REGISTRY:
        return _REGISTRY[name](cfg)
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            factory = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load policy {name!r}: {exc}") from exc
        policy = factory(cfg)
        if not isinstance(policy, Policy):
            raise ValueError(f"{name!r} does not implement Policy (name, decide, decide_batch)")
        return policy
    raise ValueError(f"unknown policy {name!r}; choose one of: {', '.join(policy_names())} or 'module:Class'")
