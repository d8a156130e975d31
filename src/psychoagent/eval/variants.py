"""Named agent variants for experiments: a policy plus ablation switches, resolved into `simulate()` arguments.

`full` is the cognitive agent with everything on; `no-memory`, `static-persona`, `no-affect`, `no-persona-recall`
and `no-guardrails` switch one part off; `persona` (persona-driven rules) and `composite` (EconAgent's rule
baseline) are the static baselines; `llm` is the cognitive agent deciding through a language model; `econagent`
lets the model decide work and consumption as in EconAgent (Li et al. 2024).

Switches and swept settings are found in the run's one settings tree, `SimulationConfig`: a field of its
`economy`, then of its `cognitive` households' loop, then of their persona `evolution` (the key `evolution` picks a
preset), then of their `memory`, for policies with cognitive households; they become the scenario's override tables, so config.json
records them. A variant whose policy or switches the build lacks fails with a message that says what is missing.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from psychoagent.econ.config import SimulationConfig
from psychoagent.econ.contracts import Configurable
from psychoagent.econ.policies import make_policy, policy_names
from psychoagent.econ.scenario import Scenario, deep_merge


@dataclass(frozen=True)
class Variant:
    """A named agent configuration: policy name and the `AblationConfig` switches it turns off."""

    name: str
    policy: str
    description: str
    off: tuple[str, ...] = ()


PARTS = tuple(SimulationConfig.model_fields)
"""The parts of the settings tree, in the order a setting is looked up: economy, cognitive, evolution, memory."""

EVOLUTION_PRESET = "evolution"
"""Sweep key naming a persona evolution preset ('default', 'resilient', 'volatile')."""

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("full", "cognitive", "cognitive agent: memory, evolving persona, affect-modulated recall, guardrails"),
        Variant("no-memory", "cognitive", "cognitive agent without memory", ("memory",)),
        Variant("static-persona", "cognitive", "cognitive agent whose persona never evolves", ("persona_evolution",)),
        Variant("no-affect", "cognitive", "cognitive agent, recall without affect modulation", ("affect_modulation",)),
        Variant("no-persona-recall", "cognitive", "cognitive agent, recall not modulated by persona",
                ("persona_recall",)),
        Variant("no-guardrails", "cognitive", "cognitive agent without rule validator and look-ahead", ("guardrails",)),
        Variant("llm", "llm", "cognitive agent deciding through a language model (offline model by default)"),
        Variant("econagent", "econagent", "the model decides work and consumption as in EconAgent (offline by default)"),
        Variant("persona", "persona", "static baseline: persona-driven rules, no memory, no evolution"),
        Variant("composite", "composite", "EconAgent's rule baseline (Li et al. 2024), persona ignored"),
    )
}  # fmt: skip


@dataclass(frozen=True)
class Resolved:
    """How to run a variant: the policy name for simulate() and the overrides of the run's settings, by part of
    `SimulationConfig` (`evolution` may name a `preset`)."""

    policy: str
    economy: dict[str, Any] = field(default_factory=dict)
    cognitive: dict[str, Any] = field(default_factory=dict)
    evolution: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Any] = field(default_factory=dict)

    def scenario(self, base: Scenario) -> Scenario:
        """`base` with these overrides merged into its tables and validated (ValidationError when they do not
        make a valid economy or agent)."""
        data = base.model_dump()
        for part in PARTS:
            data[part] = merge_overrides(data[part], getattr(self, part))
        scen = Scenario.model_validate(data)
        scen.apply()
        return scen


def variant_names() -> list[str]:
    """Registered variant names in registry order."""
    return list(VARIANTS)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _models_in(a)]


def model_fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, annotation) of every field of `model`, descending into nested models."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        yield path, info.annotation
        for sub in _models_in(info.annotation):
            yield from model_fields(sub, path + ".")


def find_field(model: type[BaseModel], leaf: str) -> list[str]:
    """Dotted paths inside `model` whose last part is `leaf` (a dotted `leaf` must match a path exactly)."""
    paths = [p for p, _ in model_fields(model)]
    if "." in leaf:
        return [leaf] if leaf in paths else []
    return [p for p in paths if p.rsplit(".", 1)[-1] == leaf]


def _path_of(model: type[BaseModel], type_name: str) -> str | None:
    for path, ann in model_fields(model):
        if any(m.__name__ == type_name for m in _models_in(ann)):
            return path
    return None


def has_agents(policy: str) -> bool:
    """Whether the policy has cognitive households that take the cognitive and evolution settings."""
    return isinstance(make_policy(policy), Configurable)


def nested(path: str, value: Any) -> dict[str, Any]:
    """{'a': {'b': value}} for path 'a.b'."""
    out: dict[str, Any] = {}
    node = out
    parts = path.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value
    return out


def merge_overrides(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge override mappings, later ones winning."""
    out: dict[str, Any] = {}
    for p in parts:
        out = deep_merge(out, p)
    return out


def setting_path(policy: str, key: str) -> tuple[str, str] | None:
    """Where a setting lives for this policy: (part, path inside it) for the first part of `SimulationConfig`
    (economy, cognitive, evolution, memory; all but the first only for policies with cognitive households) that has it, or
    ('evolution', 'preset') for EVOLUTION_PRESET; None when nowhere. ValueError when a part has it twice."""
    agents = has_agents(policy)
    if key == EVOLUTION_PRESET:
        return ("evolution", "preset") if agents else None
    for part, info in SimulationConfig.model_fields.items():
        if part != "economy" and not agents:
            continue
        model = _models_in(info.annotation)[0]
        paths = find_field(model, key)
        if len(paths) > 1:
            raise ValueError(f"setting {key!r} is ambiguous; give one of: {', '.join(paths)}")
        if paths:
            return part, paths[0]
    return None


def resolve(name: str, settings: Sequence[tuple[str, Any]] = ()) -> Resolved:
    """How to run variant `name` with extra settings (key, value) applied; ValueError when the variant is
    unknown, or this build lacks its policy, its switches, or a setting."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; choose from: {', '.join(VARIANTS)}")
    v = VARIANTS[name]
    if v.policy not in policy_names():
        raise ValueError(
            f"variant {name!r} needs policy {v.policy!r}, which this build does not have "
            f"(policies: {', '.join(policy_names())})"
        )
    parts: dict[str, dict[str, Any]] = {part: {} for part in PARTS}
    if v.off:
        where = _path_of(SimulationConfig, "AblationConfig")
        if where is None or not has_agents(v.policy):
            raise ValueError(
                f"variant {name!r} switches off {', '.join(v.off)}, but this build exposes no ablation switches "
                f"for policy {v.policy!r} (no AblationConfig in its settings)"
            )
        part, _, path = where.partition(".")
        parts[part] = nested(path, dict.fromkeys(v.off, False))
    for key, value in settings:
        found = setting_path(v.policy, key)
        if found is None:
            raise ValueError(
                f"setting {key!r} exists neither in the economy config nor in policy {v.policy!r}"
            )
        part, path = found
        parts[part] = merge_overrides(parts[part], nested(path, str(value) if path == "preset" else value))
    return Resolved(v.policy, **parts)


def _leaves(tree: Mapping[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k, v in tree.items():
        if isinstance(v, Mapping):
            out += _leaves(v, f"{prefix}{k}.")
        elif not isinstance(v, bool):
            out.append(f"{prefix}{k}={v}")
    return out


def parse_sweep(spec: str) -> tuple[str, list[Any]]:
    """'loss_aversion=1.5,2.25' -> ('loss_aversion', [1.5, 2.25]); numbers and booleans are parsed, anything
    else stays a string (e.g. a preset name). Where the setting lives is decided per variant by `resolve`."""
    key, sep, values = spec.partition("=")
    key = key.strip()
    vals = [_value(v.strip()) for v in values.split(",") if v.strip()]
    if not sep or not key or not vals:
        raise ValueError(f"--sweep takes param=v1,v2,..., got {spec!r}")
    return key, vals


def applies(variant: str, key: str) -> bool:
    """Whether setting `key` exists for this variant's policy (rule baselines ignore agent settings)."""
    v = VARIANTS.get(variant)
    return v is not None and v.policy in policy_names() and setting_path(v.policy, key) is not None


def _value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text
