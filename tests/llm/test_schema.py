"""Schema preparation and the tolerant parse/repair helpers."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from psychoagent.llm.schema import (
    clamp_out_of_range,
    example_from_schema,
    extract_json,
    parse_repaired,
    parse_strict,
    prepare_schema,
)


class Inner(BaseModel):
    score: int = Field(ge=0, le=4)


class Outer(BaseModel):
    name: str = Field(max_length=10)
    inner: Inner
    wide: int = Field(ge=0, le=100000)
    ratio: float = Field(ge=0.0, le=1.0)


def test_bounded_ints_become_enums_and_refs_are_inlined() -> None:
    schema = prepare_schema(Outer)
    assert "$defs" not in schema and "$ref" not in str(schema)
    assert schema["properties"]["inner"]["properties"]["score"]["enum"] == [0, 1, 2, 3, 4]
    assert "enum" not in schema["properties"]["wide"], "a wide range keeps its bounds instead of a huge enum"
    assert schema["properties"]["name"]["maxLength"] == 10


def test_parse_tolerates_fences_prose_and_raw_newlines() -> None:
    assert parse_strict('Sure!\n```json\n{"a": "line1\nline2"}\n```') == {"a": "line1\nline2"}
    assert extract_json('noise {"a": 1} trailing') == '{"a": 1}'
    with pytest.raises(ValueError):
        parse_strict('{"a": 1,')
    assert parse_repaired('{"a": 1, "b": "cut') == {"a": 1, "b": "cut"}


def test_clamp_fixes_only_range_errors() -> None:
    data = {"name": "n", "inner": {"score": 9}, "wide": -5, "ratio": 1.7}
    with pytest.raises(ValidationError) as info:
        Outer.model_validate(data)
    fixed, changed = clamp_out_of_range(data, info.value)
    assert changed and data["inner"]["score"] == 9, "the input is not mutated"
    assert Outer.model_validate(fixed) == Outer(name="n", inner=Inner(score=4), wide=0, ratio=1.0)
    bad_type = {"name": "n", "inner": {"score": "high"}, "wide": 1, "ratio": 0.5}
    with pytest.raises(ValidationError) as info2:
        Outer.model_validate(bad_type)
    assert clamp_out_of_range(bad_type, info2.value) == (bad_type, False)


def test_example_from_schema_is_valid() -> None:
    assert Outer.model_validate(example_from_schema(prepare_schema(Outer))).inner.score == 0
