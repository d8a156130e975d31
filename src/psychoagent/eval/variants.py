"""Named agent variants for experiments: a policy plus ablation switches, resolved into `simulate()` arguments.

`full` is the cognitive agent with everything on; `no-memory`, `static-persona`, `no-affect`, `no-guardrails`
switch one part off; `composite` (EconAgent's rule baseline) and `persona` (persona-driven rules, no memory) are
the static baselines; `llm` is the cognitive agent deciding through a language model. Ablation switches are found
where the build exposes them: a `simulate()` keyword, or a field of type `AblationConfig` anywhere inside
`EconomyConfig` (set through scenario overrides). A variant whose policy or switches the build lacks fails with a
message that says what is missing.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.policies import policy_names


@dataclass(frozen=True)
class Variant:
    """A named agent configuration: policy name and switches of `AblationConfig` to turn off."""

    name: str
    policy: str
    description: str
    off: tuple[str, ...] = ()
    economy: Mapping[str, Any] = field(default_factory=dict)


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
        Variant("persona", "persona", "static baseline: persona-driven rules, no memory, no evolution"),
        Variant("composite", "composite", "EconAgent's rule baseline (Li et al. 2024), persona ignored"),
    )
}  # fmt: skip


def variant_names() -> list[str]:
    """Registered variant names in registry order."""
    return list(VARIANTS)


def _model_fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, annotation) of every field of `model`, descending into nested models."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        yield path, info.annotation
        for sub in _models_in(info.annotation):
            yield from _model_fields(sub, path + ".")


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _models_in(a)]


def find_field(leaf: str) -> list[str]:
    """Dotted paths inside EconomyConfig whose last part is `leaf` (a dotted `leaf` must match exactly)."""
    paths = [p for p, _ in _model_fields(EconomyConfig)]
    if "." in leaf:
        return [leaf] if leaf in paths else []
    return [p for p in paths if p.rsplit(".", 1)[-1] == leaf]


def ablation_path() -> str | None:
    """Dotted path of the AblationConfig inside EconomyConfig, or None when the economy has none."""
    for path, ann in _model_fields(EconomyConfig):
        if any(m.__name__ == "AblationConfig" for m in _models_in(ann)):
            return path
    return None


def nested(path: str, value: Any) -> dict[str, Any]:
    """{'a': {'b': value}} for path 'a.b'."""
    out: dict[str, Any] = {}
    node = out
    parts = path.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value
    return out


def resolve(name: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(policy, extra simulate() keywords, EconomyConfig overrides) for a variant; ValueError when unknown or
    when this build lacks its policy or ablation switches."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; choose from: {', '.join(VARIANTS)}")
    v = VARIANTS[name]
    policies = policy_names()
    if v.policy not in policies:
        raise ValueError(
            f"variant {name!r} needs policy {v.policy!r}, which this build does not have "
            f"(policies: {', '.join(policies)})"
        )
    kwargs: dict[str, Any] = {}
    economy: dict[str, Any] = dict(v.economy)
    if v.off:
        switches = dict.fromkeys(v.off, False)
        from psychoagent.econ.run import simulate

        params = inspect.signature(simulate).parameters
        where = ablation_path()
        if "ablation" in params or "ablations" in params:
            kwargs["ablation" if "ablation" in params else "ablations"] = switches
        elif where is not None:
            economy = _merge(economy, nested(where, switches))
        else:
            raise ValueError(
                f"variant {name!r} switches off {', '.join(v.off)}, but this build exposes no ablation switches "
                "(no simulate() keyword 'ablation' and no AblationConfig inside EconomyConfig)"
            )
    return v.policy, kwargs, economy


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def parse_sweep(spec: str) -> tuple[str, list[Any]]:
    """'loss_aversion=1.5,2.25' -> (dotted EconomyConfig path, [1.5, 2.25]); numbers and booleans are parsed,
    anything else stays a string (e.g. a preset name)."""
    key, sep, values = spec.partition("=")
    key = key.strip()
    if not sep or not key or not values.strip():
        raise ValueError(f"--sweep takes param=v1,v2,..., got {spec!r}")
    paths = find_field(key)
    if not paths:
        raise ValueError(f"--sweep {key!r}: no such setting in the economy config of this build")
    if len(paths) > 1:
        raise ValueError(f"--sweep {key!r} is ambiguous; give one of: {', '.join(paths)}")
    return paths[0], [_value(v.strip()) for v in values.split(",") if v.strip()]


def _value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def merge_overrides(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge several EconomyConfig override mappings, later ones winning."""
    out: dict[str, Any] = {}
    for p in parts:
        out = _merge(out, p)
    return out
