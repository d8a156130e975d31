"""The one input contract: what the library refuses, the service refuses too, with the same limits and the argument
named; the filter grammar is parsed strictly; unknown ids are `NotFound`; random arguments never escape as internals."""

from __future__ import annotations

import datetime as dt
import inspect
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from psychoagent import Memory
from psychoagent.memory.filters import FilterError, parse_where
from psychoagent.memory.inputs import InvalidArgument, NotFound
from psychoagent.memory.limits import LIMITS, limits_table
from psychoagent.service import models

_MEM = Memory(embedder="hash")


def _refused(call: Any, argument: str) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as info:
        call()
    assert info.value.argument == argument, str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("where", "column"),
    [
        ("tier = = ; DROP TABLE units", 8),
        ("metadata.x = 1 OR 1=1", 16),
        ("valence < 0 AND", 16),
        ("metadata.topic = budget plan", 25),
        ("kind in [episodic, summary", 27),
        ("valence ~ 1", 9),
    ],
)
def test_a_malformed_filter_is_refused_with_the_column_where_parsing_stopped(where: str, column: int) -> None:
    with pytest.raises(FilterError, match=f"column {column}"):
        parse_where(where)
    error = _refused(lambda: _MEM.recall("a", where=where), "where")
    assert f"column {column}" in str(error)


def test_the_filter_grammar_reads_quoted_text_lists_numbers_times_and_booleans() -> None:
    got = parse_where("kind in [episodic, 'summary'] AND metadata.topic = 'the budget' AND valence < -0.5 "
                      "and created_at >= 2024-01-01T00:00:00Z AND current = true AND metadata.n != 3")  # fmt: skip
    assert [(c.field, c.op, c.value) for c in got] == [
        ("kind", "in", ["episodic", "summary"]),
        ("metadata.topic", "==", "the budget"),
        ("valence", "<", -0.5),
        ("created_at", ">=", 1704067200.0),
        ("current", "==", True),
        ("metadata.n", "!=", 3),
    ]


def test_the_library_refuses_what_the_service_refuses_naming_the_argument() -> None:
    _refused(lambda: _MEM.observe("a" * (LIMITS.max_text_chars + 1)), "text")
    _refused(lambda: _MEM.for_namespace("n" * (LIMITS.max_namespace_chars + 1)), "namespace")
    _refused(lambda: _MEM.observe("x", kind="bogus"), "kind")
    _refused(lambda: _MEM.observe("a\x00b"), "text")
    _refused(lambda: _MEM.observe("x", metadata={"x": 10**400}), "metadata['x']")
    _refused(lambda: _MEM.observe("x", timestamp=dt.datetime(2024, 1, 1)), "timestamp")
    _refused(lambda: _MEM.recall("x", polcy="lessons"), "polcy")
    _refused(lambda: _MEM.brief("x", polcy="lessons"), "polcy")
    _refused(lambda: _MEM.recall("x" * (LIMITS.max_query_chars + 1)), "query")
    with pytest.raises(FilterError):
        _MEM.recall("x", where={"created_at": {">": dt.datetime(2024, 1, 1)}})
    # the same values at the service's request models
    for bad in ({"text": "a\x00b"}, {"text": "x", "metadata": {"x": 10**400}}, {"text": "a" * 8_001}):
        with pytest.raises(ValueError):
            models.ObserveRequest.model_validate(bad)
    assert models.LIMITS is LIMITS


def test_aware_times_and_iso_text_without_an_offset_are_accepted_as_utc() -> None:
    mem = Memory(embedder="hash")
    a = mem.observe("the rent went up", timestamp=dt.datetime(2024, 1, 1, tzinfo=dt.UTC))
    b = mem.observe("the rent went down", timestamp="2024-01-02T00:00:00")
    assert a.created_at.tzinfo is not None and b.created_at == dt.datetime(2024, 1, 2, tzinfo=dt.UTC)


def test_unknown_ids_raise_not_found_which_is_both_invalid_argument_and_key_error() -> None:
    mem = Memory(embedder="hash")
    for call, argument in (
        (lambda: mem.forget("nope"), "id"),
        (lambda: mem.supersede("nope", "new text"), "old_id"),
        (lambda: mem.resolve_conflict("nope", "kept the newer"), "conflict_id"),
    ):
        with pytest.raises(NotFound) as info:
            call()
        assert isinstance(info.value, KeyError) and isinstance(info.value, InvalidArgument)
        assert info.value.argument == argument and "nope" in str(info.value)


def test_a_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "memory.db"
    error = _refused(lambda: Memory(target, embedder="hash"), "path")
    assert "create it first" in str(error) and not target.parent.exists()


def test_a_stage_of_ones_own_declares_its_extra_keywords() -> None:
    mem = Memory(embedder="hash")
    mem.observe("the budget is tight")

    class Boost:
        extra_keys = ("boost",)

        def __call__(self, cands: Any, index: Any, ctx: Any, cfg: Any) -> None:
            assert ctx.extras["boost"] == 2.0

    mem.pipeline.append(Boost())
    assert mem.recall("budget", boost=2.0)
    _refused(lambda: mem.recall("budget", bost=2.0), "bost")


def test_the_limits_table_lists_every_limit() -> None:
    names = {row[0] for row in limits_table()}
    assert {"text chars", "namespace chars", "metadata depth", "kinds", "times"} <= names


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=30),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.datetimes(), st.binary(max_size=5),
)  # fmt: skip
_OBSERVE = sorted(inspect.signature(Memory.observe).parameters.keys() - {"self"})
_RECALL = sorted(inspect.signature(Memory.recall).parameters.keys() - {"self", "extras"})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    method=st.sampled_from(["observe", "recall"]),
    kwargs=st.dictionaries(st.sampled_from([*_OBSERVE, *_RECALL, "bogus"]), _VALUES, max_size=4),
)
def test_random_arguments_either_work_or_are_refused_naming_an_argument(
    method: str, kwargs: dict[str, Any]
) -> None:
    first = kwargs.pop("text", None) if method == "observe" else kwargs.pop("query", None)
    allowed = set(_OBSERVE if method == "observe" else _RECALL) | {"bogus", "goals", "mmr", "explore"}
    kwargs = {k: v for k, v in kwargs.items() if k in allowed}
    try:
        getattr(_MEM, method)(first, **kwargs)
    except InvalidArgument as exc:
        assert exc.argument and exc.argument.split("[")[0].split(".")[0].split(" ")[0] in (
            allowed | {"text", "query", "items"}
        ), str(exc)
    except TypeError as exc:  # a keyword given twice or a positional one left out: Python's own message
        assert "argument" in str(exc)


@pytest.mark.parametrize("doc", ["README.md", "docs/memory.md"])
def test_the_docs_show_the_limits_table_as_the_code_has_it(doc: str) -> None:
    text = (Path(__file__).resolve().parents[2] / doc).read_text(encoding="utf-8")
    shown = text.split("<!-- limits:start -->\n", 1)[1].split("<!-- limits:end -->", 1)[0]
    rows = ["| what | limit | why |", "|---|---|---|"]
    rows += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in limits_table()]
    assert shown.strip().splitlines() == rows
