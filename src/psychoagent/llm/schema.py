"""From a pydantic model to a schema a small model can follow, and from messy model text back to a valid object."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import json_repair
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)

CRITICAL = "x-decision-critical"
"""`Field(json_schema_extra={CRITICAL: True})` marks a decision-critical number (an order size, a share): out of
range it is never clamped to its bound (5 for a share of at most 1 is not "all in"); the answer is invalid, the
client asks again and then uses the declared fallback. The key is removed from the schema a model sees."""


def prepare_schema(model: type[BaseModel], max_enum_range: int = 101) -> dict[str, Any]:
    """JSON schema of `model` with $refs inlined and small bounded integer ranges turned into enums.

    llama.cpp grammars ignore integer minimum/maximum, so an enum is the only way to constrain them there.
    """
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    return _convert(_inline(schema, defs, 0), max_enum_range)


def _inline(node: Any, defs: dict[str, Any], depth: int) -> Any:
    if depth > 20:
        raise ValueError("schema: $ref nesting deeper than 20 levels (recursive models are not supported)")
    if isinstance(node, dict):
        if "$ref" in node:
            target = copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return _inline({**target, **rest}, defs, depth + 1)
        return {k: _inline(v, defs, depth) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs, depth) for v in node]
    return node


def _int_bounds(node: dict[str, Any]) -> tuple[int, int] | None:
    lo = node.get("minimum", None if "exclusiveMinimum" not in node else node["exclusiveMinimum"] + 1)
    hi = node.get("maximum", None if "exclusiveMaximum" not in node else node["exclusiveMaximum"] - 1)
    if lo is None or hi is None:
        return None
    return int(lo), int(hi)


def _convert(node: Any, max_enum_range: int) -> Any:
    if isinstance(node, list):
        return [_convert(v, max_enum_range) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _convert(v, max_enum_range) for k, v in node.items() if k != CRITICAL}
    if node.get("type") == "integer" and "enum" not in node:
        bounds = _int_bounds(node)
        if bounds and 0 < bounds[1] - bounds[0] + 1 <= max_enum_range:
            keep = {k: v for k, v in node.items() if k in ("title", "description", "default")}
            return {**keep, "type": "integer", "enum": list(range(bounds[0], bounds[1] + 1))}
    return node


def schema_instructions(schema: dict[str, Any], compact: bool = False) -> str:
    """The system-prompt text that asks for JSON matching `schema` (used by every mode as a hint).

    `compact`: the fields in one line (`schema_outline`) instead of the whole schema, for modes where the backend
    enforces the schema itself (a llama.cpp grammar, a server's json_schema): there the hint only has to say what
    the fields mean, and a small model reads every token of it (a decision schema printed whole is ~530 tokens)."""
    if compact:
        return "Answer with one JSON object only: " + schema_outline(schema)
    return (
        "Answer with one JSON object only, no prose and no code fences. It must match this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def schema_outline(schema: dict[str, Any]) -> str:
    """The fields of an object schema in one line: `{work: number 0..1, trade: null | {side: BUY|SELL, ...}}`."""
    return _outline(schema, 0)


def _outline(node: dict[str, Any], depth: int) -> str:
    if "enum" in node:
        values = node["enum"]
        if len(values) > 8 and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return f"number {min(values):g}..{max(values):g}"  # a grid of numbers: its range says enough
        return "|".join(str(v) for v in values)
    options = node.get("anyOf") or node.get("oneOf")
    if options:
        return " | ".join(_outline(o, depth) for o in options)
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        if depth > 3:
            return "object"
        required = set(node.get("required", ()))
        parts = []
        for name, sub in node.get("properties", {}).items():
            text = _outline(sub, depth + 1)
            doc = re.split(r",? e\.g\.|\.\s|\.$|;", str(sub.get("description", "")))[0].strip()
            mark = "" if name in required else "?"
            parts.append(f"{name}{mark}: {text}" + (f" ({doc})" if doc and depth == 0 else ""))
        return "{" + ", ".join(parts) + "}"
    if kind == "array":
        return f"[{_outline(node.get('items', {}), depth + 1)}]"
    if kind in ("number", "integer"):
        lo = node.get("minimum", node.get("exclusiveMinimum"))
        hi = node.get("maximum", node.get("exclusiveMaximum"))
        bounds = (
            f" {lo:g}..{hi:g}" if lo is not None and hi is not None else f" >{lo:g}" if lo is not None else ""
        )
        return f"{kind}{bounds}"
    if kind == "string":
        return f"string<={node['maxLength']} chars" if "maxLength" in node else "string"
    return str(kind or "any")


def extract_json(text: str) -> str:
    """The most likely JSON object in `text`: inside a code fence, else from the first '{' to the last '}'."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        return text[start : end + 1]
    return text.strip()


def parse_strict(text: str) -> Any:
    """json.loads that tolerates raw control characters in strings (llama.cpp emits raw newlines)."""
    return json.loads(extract_json(text), strict=False)


def parse_repaired(text: str) -> Any:
    """Best-effort parse of broken JSON (missing quotes, trailing commas, cut-off output) via json-repair."""
    return json_repair.loads(extract_json(text) if "{" in text else text)


def _members(annotation: Any) -> list[Any]:
    """The types an annotation can stand for (Optional, unions and Annotated unwrapped)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or type(annotation).__name__ == "UnionType":
        return [m for arg in get_args(annotation) for m in _members(arg)]
    return [annotation]


def is_critical(model: type[BaseModel], loc: Sequence[str | int]) -> bool:
    """True when the field at error location `loc` of `model` (or a field containing it) is marked CRITICAL."""
    current: list[Any] = [model]
    for key in loc:
        found: list[Any] = []
        for kind in (m for c in current for m in _members(c)):
            if isinstance(kind, type) and issubclass(kind, BaseModel) and isinstance(key, str):
                field = kind.model_fields.get(key)
                if field is None:
                    continue
                extra = field.json_schema_extra
                if isinstance(extra, dict) and extra.get(CRITICAL):
                    return True
                found.append(field.annotation)
            elif get_origin(kind) in (list, tuple, set, frozenset, Sequence) and isinstance(key, int):
                found.extend(get_args(kind))
            elif get_origin(kind) is dict and isinstance(key, str):
                found.append(get_args(kind)[-1])
        current = found
    return False


def clamp_out_of_range(
    data: Any, error: ValidationError, model: type[BaseModel] | None = None
) -> tuple[Any, bool]:
    """Clamp numbers that broke a ge/le/gt/lt bound to the bound, except fields of `model` marked CRITICAL;
    returns (data, changed)."""
    if not isinstance(data, dict):
        return data, False
    data = copy.deepcopy(data)
    changed = False
    for err in error.errors():
        ctx = err.get("ctx") or {}
        kind = err["type"]
        if kind not in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
            continue
        if model is not None and is_critical(model, err["loc"]):
            continue
        bound = next((ctx[k] for k in ("ge", "le", "gt", "lt") if k in ctx), None)
        if not isinstance(bound, int | float):
            continue
        if kind in ("greater_than", "less_than"):
            if not isinstance(bound, int):
                continue  # a strict float bound has no nearest valid value
            bound = bound + 1 if kind == "greater_than" else bound - 1
        parent: Any = data
        loc = list(err["loc"])
        try:
            for key in loc[:-1]:
                parent = parent[key]
            if isinstance(parent[loc[-1]], int | float) and not isinstance(parent[loc[-1]], bool):
                parent[loc[-1]] = bound
                changed = True
        except (KeyError, IndexError, TypeError):
            continue
    return data, changed


def short_error(error: Exception, limit: int = 600) -> str:
    """A compact description of a parse or validation error, fed back to the model on retry."""
    if isinstance(error, ValidationError):
        parts = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']} (got {e.get('input')!r})"
            for e in error.errors()
        ]
        text = "; ".join(parts)
    else:
        text = f"{type(error).__name__}: {error}"
    return text[:limit]


def parse_answer(text: str, output: type[M], clamp: bool = True) -> tuple[M | None, bool, str]:
    """Tolerant parse + validation + repair of a model's answer: (object or None, whether repair was needed, error
    text). `clamp`: an out-of-range number is clamped to its bound (`clamp_out_of_range`) and counts as a repair."""
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
        if clamp:
            clamped, changed = clamp_out_of_range(data, exc, output)
            if changed:
                try:
                    return output.model_validate(clamped), True, ""
                except ValidationError as exc2:
                    return None, False, short_error(exc2)
        return None, False, short_error(exc) if text.strip() else "empty answer"


def example_from_schema(schema: dict[str, Any]) -> Any:
    """A deterministic value that satisfies simple schemas: defaults, first enum values, lower bounds."""
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        values = schema["enum"]
        if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return min(values, key=abs)  # the most neutral number (0 on a -3..3 scale)
        return values[0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return example_from_schema(options[0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: example_from_schema(sub) for name, sub in props.items()}
    if kind == "array":
        item = schema.get("items", {})
        return [example_from_schema(item) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum"))
        hi = schema.get("maximum", schema.get("exclusiveMaximum"))
        value: float = 0
        if lo is not None and lo > value:
            value = lo + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
        if hi is not None and hi < value:
            value = hi - (1 if "exclusiveMaximum" in schema and "maximum" not in schema else 0)
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "x" * int(schema.get("minLength", 0))
