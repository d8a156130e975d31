"""Bad input at the library boundary: every public `Memory` method answers one clear error that names the
argument (an `InvalidArgument`, a ValueError, or `InvalidArgumentType`, also a TypeError) and stores nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.memory.filters import FilterError
from psychoagent.memory.history import history
from psychoagent.memory.inputs import InvalidArgument, InvalidArgumentType
from psychoagent.types import Affect

NAN, INF = float("nan"), float("inf")
LONE = "bad \ud800 text"


def _mem() -> Memory:
    mem = Memory(embedder="hash")
    mem.observe(
        "The budget is 2000 yuan.", id="u1", timestamp="2024-05-01T00:00:00Z", metadata={"topic": "b"}
    )
    mem.for_namespace("other").observe("Another agent's fact.", id="o1")
    return mem


def _snapshot(mem: Memory) -> Any:
    """Everything a call could have written: units (with access counts), edges, conflicts, namespaces."""
    return (
        sorted(mem.namespaces()),
        [u.model_dump() for ns in mem.namespaces() for u in mem.for_namespace(ns).units()],
        [e.model_dump() for e in mem.edges()],
        [c.model_dump() for c in mem.conflicts()],
    )


def _other_unit(mem: Memory) -> Any:
    return mem.for_namespace("other").get("o1")


Call = Callable[[Memory], Any]
T, V = InvalidArgumentType, InvalidArgument

CASES: list[tuple[str, Call, type[Exception], str]] = [
    # observe: text
    ("text-none", lambda m: m.observe(None), T, "text"),
    ("text-int", lambda m: m.observe(5), T, "text"),
    ("text-bytes", lambda m: m.observe(b"bytes"), T, "text"),
    ("text-list", lambda m: m.observe(["a list"]), T, "text"),
    ("text-empty", lambda m: m.observe(""), V, "text"),
    ("text-blank", lambda m: m.observe("  \n\t"), V, "text"),
    ("text-lone-surrogate", lambda m: m.observe(LONE), V, "text"),
    # observe: goals
    ("goals-string", lambda m: m.observe("a fact", goals="keep low"), T, "goals"),
    ("goals-none-item", lambda m: m.observe("a fact", goals=[None]), T, "goals[0]"),
    ("goals-int-item", lambda m: m.observe("a fact", goals=[5]), T, "goals[0]"),
    ("goals-empty-item", lambda m: m.observe("a fact", goals=[""]), V, "goals[0]"),
    ("goals-surrogate-item", lambda m: m.observe("a fact", goals=["ok", "\udfff"]), V, "goals[1]"),
    ("goals-int", lambda m: m.observe("a fact", goals=5), T, "goals"),
    ("goals-dict", lambda m: m.observe("a fact", goals={"keep": 1}), T, "goals"),
    ("goals-bytes", lambda m: m.observe("a fact", goals=b"keep"), T, "goals"),
    ("goals-set", lambda m: m.observe("a fact", goals={"keep low"}), T, "goals"),
    # observe: timestamp
    ("timestamp-true", lambda m: m.observe("a fact", timestamp=True), T, "timestamp"),
    ("timestamp-false", lambda m: m.observe("a fact", timestamp=False), T, "timestamp"),
    ("timestamp-1e20", lambda m: m.observe("a fact", timestamp=1e20), V, "timestamp"),
    ("timestamp-minus-1e20", lambda m: m.observe("a fact", timestamp=-1e20), V, "timestamp"),
    ("timestamp-huge-int", lambda m: m.observe("a fact", timestamp=10**30), V, "timestamp"),
    ("timestamp-nan", lambda m: m.observe("a fact", timestamp=NAN), V, "timestamp"),
    ("timestamp-inf", lambda m: m.observe("a fact", timestamp=INF), V, "timestamp"),
    ("timestamp-words", lambda m: m.observe("a fact", timestamp="yesterday"), V, "timestamp"),
    ("timestamp-empty", lambda m: m.observe("a fact", timestamp=""), V, "timestamp"),
    ("timestamp-year-99999", lambda m: m.observe("a fact", timestamp="99999-01-01"), V, "timestamp"),
    ("timestamp-list", lambda m: m.observe("a fact", timestamp=[2024]), T, "timestamp"),
    ("timestamp-object", lambda m: m.observe("a fact", timestamp=object()), T, "timestamp"),
    # observe: sources
    ("sources-string", lambda m: m.observe("a fact", sources="abc"), T, "sources"),
    ("sources-none-item", lambda m: m.observe("a fact", sources=[None]), T, "sources[0]"),
    ("sources-empty-item", lambda m: m.observe("a fact", sources=[""]), V, "sources[0]"),
    ("sources-int-item", lambda m: m.observe("a fact", sources=[1]), T, "sources[0]"),
    ("sources-int", lambda m: m.observe("a fact", sources=5), T, "sources"),
    # observe: metadata
    ("metadata-string", lambda m: m.observe("a fact", metadata="x"), T, "metadata"),
    ("metadata-pairs", lambda m: m.observe("a fact", metadata=[("a", 1)]), T, "metadata"),
    ("metadata-int-key", lambda m: m.observe("a fact", metadata={1: "x"}), T, "metadata key"),
    ("metadata-object", lambda m: m.observe("a fact", metadata={"a": object()}), T, "metadata['a']"),
    ("metadata-nan", lambda m: m.observe("a fact", metadata={"a": NAN}), V, "metadata['a']"),
    ("metadata-deep-inf", lambda m: m.observe("a fact", metadata={"a": {"b": [INF]}}), V, "metadata['a']['b'][0]"),
    ("metadata-bytes", lambda m: m.observe("a fact", metadata={"a": b"x"}), T, "metadata['a']"),
    ("metadata-surrogate", lambda m: m.observe("a fact", metadata={"a": "\ud800"}), V, "metadata['a']"),
    ("metadata-set", lambda m: m.observe("a fact", metadata={"a": {1, 2}}), T, "metadata['a']"),
    ("metadata-numpy-int", lambda m: m.observe("a fact", metadata={"a": np.int64(3)}), T, "metadata['a']"),
    # observe: id, kind, affect
    ("id-empty", lambda m: m.observe("a fact", id=""), V, "id"),
    ("id-blank", lambda m: m.observe("a fact", id="   "), V, "id"),
    ("id-int", lambda m: m.observe("a fact", id=5), T, "id"),
    ("id-newline", lambda m: m.observe("a fact", id="a\nb"), V, "id"),
    ("id-surrounding-space", lambda m: m.observe("a fact", id=" u2"), V, "id"),
    ("id-surrogate", lambda m: m.observe("a fact", id="\ud800"), V, "id"),
    ("id-exists", lambda m: m.observe("a fact", id="u1"), V, "id"),
    ("kind-empty", lambda m: m.observe("a fact", kind=""), V, "kind"),
    ("kind-int", lambda m: m.observe("a fact", kind=5), T, "kind"),
    ("kind-reserved", lambda m: m.observe("a fact", kind="forgotten"), V, "kind"),
    ("kind-sentence", lambda m: m.observe("a fact", kind="an odd\nkind"), V, "kind"),
    ("affect-dict", lambda m: m.observe("a fact", affect={"valence": 1}), T, "affect"),
    ("affect-string", lambda m: m.observe("a fact", affect="positive"), T, "affect"),
    # observe_many
    ("many-string", lambda m: m.observe_many("abc"), T, "items"),
    ("many-int", lambda m: m.observe_many(5), T, "items"),
    ("many-dict", lambda m: m.observe_many({"text": "x"}), T, "items"),
    ("many-none-item", lambda m: m.observe_many([None]), T, "items[0]"),
    ("many-bytes-item", lambda m: m.observe_many([b"x"]), T, "items[0]"),
    ("many-no-text", lambda m: m.observe_many([{"txt": "x"}]), V, "items[0]"),
    ("many-unknown-key", lambda m: m.observe_many([{"text": "x", "bogus": 1}]), V, "items[0]"),
    ("many-internal-key", lambda m: m.observe_many([{"text": "x", "vector": [1.0]}]), V, "items[0]"),
    ("many-second-bad", lambda m: m.observe_many(["fine", {"text": "x", "goals": "abc"}]), T, "items[1].goals"),
    ("many-duplicate-id", lambda m: m.observe_many([{"text": "a", "id": "d"}, {"text": "b", "id": "d"}]), V, "items[1].id"),
    ("many-existing-id", lambda m: m.observe_many([{"text": "a", "id": "new"}, {"text": "b", "id": "u1"}]), V, "id"),
    ("many-bad-timestamp", lambda m: m.observe_many([{"text": "a", "timestamp": 1e20}]), V, "items[0].timestamp"),
    # recall
    ("recall-query-none", lambda m: m.recall(None), T, "query"),
    ("recall-query-empty", lambda m: m.recall(""), V, "query"),
    ("recall-query-surrogate", lambda m: m.recall(LONE), V, "query"),
    ("recall-k-string", lambda m: m.recall("budget", k="5"), T, "k"),
    ("recall-k-negative", lambda m: m.recall("budget", k=-1), V, "k"),
    ("recall-k-bool", lambda m: m.recall("budget", k=True), T, "k"),
    ("recall-k-float", lambda m: m.recall("budget", k=2.5), T, "k"),
    ("recall-k-nan", lambda m: m.recall("budget", k=NAN), T, "k"),
    ("recall-where-int", lambda m: m.recall("budget", where=5), T, "where"),
    ("recall-where-in-scalar", lambda m: m.recall("budget", where={"metadata.topic": {"in": 5}}), V, "where"),
    ("recall-where-time-bool", lambda m: m.recall("budget", where={"created_at": {">": True}}), V, "where"),
    ("recall-where-dict-value", lambda m: m.recall("budget", where={"metadata.x": {">": {"a": 1}}}), V, "where"),
    ("recall-where-list-for-lt", lambda m: m.recall("budget", where={"valence": {"<": [1, 2]}}), V, "where"),
    ("recall-where-nan", lambda m: m.recall("budget", where={"valence": {"<": NAN}}), V, "where"),
    ("recall-where-inf-meta", lambda m: m.recall("budget", where={"metadata.x": INF}), V, "where"),
    ("recall-where-unknown-field", lambda m: m.recall("budget", where={"mood": 1}), V, "where"),
    ("recall-where-int-key", lambda m: m.recall("budget", where={1: 2}), V, "where"),
    ("recall-where-bad-op", lambda m: m.recall("budget", where={"valence": {"~": 1}}), V, "where"),
    ("recall-where-time-1e20", lambda m: m.recall("budget", where={"created_at": {">": 1e20}}), V, "where"),
    ("recall-where-string-garbage", lambda m: m.recall("budget", where="valence <<< 3"), V, "where"),
    ("recall-where-string-dict", lambda m: m.recall("budget", where='metadata.x = {"a": 1}'), V, "where"),
    ("recall-now-true", lambda m: m.recall("budget", now=True), T, "now"),
    ("recall-now-1e20", lambda m: m.recall("budget", now=1e20), V, "now"),
    ("recall-at-words", lambda m: m.recall("budget", at="last week"), V, "at"),
    ("recall-affect-dict", lambda m: m.recall("budget", affect_state={"valence": -1}), T, "affect_state"),
    ("recall-policy-unknown", lambda m: m.recall("budget", policy="bogus"), V, "policy"),
    ("recall-policy-int", lambda m: m.recall("budget", policy=5), V, "policy"),
    ("recall-context-int", lambda m: m.recall("budget", context=5), T, "context"),
    ("recall-rng-int", lambda m: m.recall("budget", rng=42), T, "rng"),
    ("recall-goals-string", lambda m: m.recall("budget", goals="keep low"), T, "goals"),
    ("recall-mmr-string", lambda m: m.recall("budget", mmr="no"), T, "mmr"),
    # brief
    ("brief-query-none", lambda m: m.brief(None), T, "query"),
    ("brief-k-string", lambda m: m.brief("budget", k="5"), T, "k"),
    ("brief-max-words-zero", lambda m: m.brief("budget", max_words=0), V, "max_words"),
    ("brief-max-words-string", lambda m: m.brief("budget", max_words="50"), T, "max_words"),
    ("brief-now-inf", lambda m: m.brief("budget", now=INF), V, "now"),
    ("brief-policy-unknown", lambda m: m.brief("budget", policy="psychic"), V, "policy"),
    # supersede
    ("supersede-new-empty", lambda m: m.supersede("u1", ""), V, "new"),
    ("supersede-new-blank", lambda m: m.supersede("u1", "   "), V, "new"),
    ("supersede-new-none", lambda m: m.supersede("u1", None), T, "new"),
    ("supersede-itself", lambda m: m.supersede("u1", "u1"), V, "new"),
    ("supersede-old-empty", lambda m: m.supersede("", "The budget is 3000 yuan."), V, "old_id"),
    ("supersede-old-int", lambda m: m.supersede(5, "The budget is 3000 yuan."), T, "old_id"),
    ("supersede-timestamp-true", lambda m: m.supersede("u1", "The budget is 3000.", timestamp=True), T, "timestamp"),
    ("supersede-reason-int", lambda m: m.supersede("u1", "The budget is 3000.", reason=5), T, "reason"),
    ("supersede-unit-of-other", lambda m: m.supersede("u1", _other_unit(m)), V, "new"),
    # update
    ("update-dict", lambda m: m.update({"id": "u1"}), T, "unit"),
    ("update-empty-content", lambda m: m.update(m.get("u1").model_copy(update={"content": ""})), V, "unit.content"),
    ("update-nan-metadata", lambda m: m.update(m.get("u1").model_copy(update={"metadata": {"a": NAN}})), V, "unit.metadata['a']"),
    ("update-bad-tier", lambda m: m.update(m.get("u1").model_copy(update={"tier": "attic"})), V, "unit.tier"),
    # forget, history, get
    ("forget-empty", lambda m: m.forget(""), V, "id"),
    ("forget-int", lambda m: m.forget(5), T, "id"),
    ("forget-reason-int", lambda m: m.forget("u1", reason=5), T, "reason"),
    ("history-empty", lambda m: history(m, ""), V, "id"),
    ("history-int", lambda m: history(m, 5), T, "id"),
    ("get-int", lambda m: m.get(5), T, "id"),
    ("get-many-string", lambda m: m.get_many("abc"), T, "ids"),
    # namespaces
    ("namespace-empty", lambda m: m.for_namespace(""), V, "namespace"),
    ("namespace-int", lambda m: m.for_namespace(5), T, "namespace"),
    ("namespace-blank", lambda m: m.for_namespace("  "), V, "namespace"),
    ("namespace-newline", lambda m: m.for_namespace("a\nb"), V, "namespace"),
    ("namespace-surrogate", lambda m: m.for_namespace("a\ud800"), V, "namespace"),
    ("memory-namespace-none", lambda m: Memory(namespace=None, embedder="hash"), T, "namespace"),
    ("memory-path-int", lambda m: Memory(5, embedder="hash"), T, "path"),
    ("memory-path-empty", lambda m: Memory("", embedder="hash"), V, "path"),
    ("memory-embedder-int", lambda m: Memory(embedder=5), T, "embedder"),
    ("memory-config-string", lambda m: Memory(embedder="hash", config="x"), T, "config"),
    ("memory-appraiser-int", lambda m: Memory(embedder="hash", appraiser=5), T, "appraiser"),
    ("memory-affect-config-int", lambda m: Memory(embedder="hash", affect_config=1), T, "affect_config"),
    # consolidate, graph, conflicts, appraise
    ("consolidate-now-words", lambda m: m.consolidate(now="soon"), V, "now"),
    ("consolidate-now-true", lambda m: m.consolidate(now=True), T, "now"),
    ("consolidate-now-1e20", lambda m: m.consolidate(now=1e20), V, "now"),
    ("link-dst-empty", lambda m: m.link("u1", ""), V, "dst"),
    ("link-type-unknown", lambda m: m.link("u1", "x", type="bogus"), V, "type"),
    ("link-weight-nan", lambda m: m.link("u1", "x", weight=NAN), V, "weight"),
    ("link-metadata-inf", lambda m: m.link("u1", "x", score=INF), V, "metadata['score']"),
    ("neighbours-depth-negative", lambda m: m.neighbours("u1", depth=-1), V, "depth"),
    ("conflicts-status-unknown", lambda m: m.conflicts(status="bogus"), V, "status"),
    ("conflicts-ids-string", lambda m: m.conflicts(ids="u1"), T, "ids"),
    ("appraise-goals-string", lambda m: m.appraise("a fact", goals="keep low"), T, "goals"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "call", "error", "argument"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_names_the_argument_and_stores_nothing(
    case: str, call: Call, error: type[Exception], argument: str
) -> None:
    mem = _mem()
    before = _snapshot(mem)
    with pytest.raises(error) as info:
        call(mem)
    assert isinstance(info.value, InvalidArgument)
    assert info.value.argument == argument, str(info.value)
    assert str(info.value).startswith(f"{argument}: ") and len(str(info.value)) > len(argument) + 10
    assert "\n" not in str(info.value)
    assert _snapshot(mem) == before, f"{case} changed what is stored"


def test_the_table_covers_the_reported_cases() -> None:
    assert len(CASES) >= 95
    names = {c[0] for c in CASES}
    for reported in ("recall-k-string", "goals-none-item", "text-lone-surrogate", "recall-where-in-scalar",
                     "timestamp-1e20", "goals-string", "sources-string", "timestamp-true", "id-empty",
                     "supersede-new-empty"):  # fmt: skip
        assert reported in names


def test_errors_stay_catchable_as_before() -> None:
    """Filter mistakes are still FilterErrors; wrong types are TypeErrors; everything is a ValueError."""
    mem = _mem()
    with pytest.raises(FilterError, match="unknown filter field 'mood'"):
        mem.recall("budget", where={"mood": 1})
    with pytest.raises(TypeError):
        mem.observe("a fact", goals="keep low")
    assert issubclass(InvalidArgumentType, ValueError)


def test_good_inputs_of_the_same_shapes_still_work() -> None:
    mem = _mem()
    unit = mem.observe("The budget is 2500 yuan.", goals=("keep it low",), sources=["u1"], id="u2",
                       timestamp=1714600000, metadata={"a": [1, 2.5, None, True, {"b": "c"}]}, kind="semantic",
                       affect=Affect(valence=1))  # fmt: skip
    assert unit.metadata["goals"] == ["keep it low"] and unit.sources == ["u1"]
    assert unit.created_at.year == 2024
    assert mem.recall("budget", k=0) == [] and len(mem.recall("budget", k=np.int64(1))) == 1
    hits = mem.recall(
        "budget", k=2, where={"metadata.topic": {"in": ["b"]}, "created_at": {">": "2024-01-01"}}
    )
    assert [h.unit.id for h in hits] == ["u1"]
    assert len(mem.observe_many(x for x in ["from a generator", {"text": "and a dict"}])) == 2


def test_the_service_hub_reports_the_library_check_with_the_argument() -> None:
    from psychoagent.service.hub import MemoryHub, ServiceError
    from psychoagent.service.models import ObserveRequest

    hub = MemoryHub(Memory(embedder="hash"))
    with pytest.raises(ServiceError) as info:
        hub.observe(
            "ns", ObserveRequest(text="a fact", id=" ab")
        )  # a space at the edge passes the request model
    assert info.value.field == "id" and info.value.message.startswith("field 'id': ")
    with pytest.raises(ServiceError) as again:
        hub.page("bad\u2028namespace")
    assert again.value.field == "namespace"
