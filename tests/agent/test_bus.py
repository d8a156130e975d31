"""Event bus: deterministic order, prefix subscription, breadth-first dispatch, journal, error isolation."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from psychoagent.agent.bus import Event, EventBus, ModuleNotice, NewsPublished, matches, read_journal


def test_handlers_run_by_priority_then_subscription_order() -> None:
    bus = EventBus()
    seen: list[str] = []
    bus.subscribe("news", lambda e: seen.append("b"))
    bus.subscribe("news.published", lambda e: seen.append("c"), priority=1)
    bus.subscribe("*", lambda e: seen.append("a"), priority=-1)
    bus.subscribe("news", lambda e: seen.append("d"))
    bus.publish(NewsPublished(tick=1, payload={"headline": "x"}))
    assert seen == ["a", "b", "d", "c"]


def test_events_published_by_handlers_are_queued_breadth_first() -> None:
    bus = EventBus(keep=100)
    order: list[tuple[str, int]] = []

    def first(e: Event) -> None:
        order.append(("first", e.seq))
        if e.type == "env.updated":
            bus.emit(e.tick, "decision.point", {"who": "all"})

    bus.subscribe("*", first)
    bus.subscribe("*", lambda e: order.append(("second", e.seq)))
    bus.emit(3, "env.updated")
    # the decision point is dispatched only after env.updated reached both handlers
    assert order == [("first", 0), ("second", 0), ("first", 1), ("second", 1)]
    assert [e.type for e in bus.history] == ["env.updated", "decision.point"]


def test_prefix_matching_is_on_dotted_words() -> None:
    assert matches("news", "news.published")
    assert matches("news", "news")
    assert not matches("news", "newsletter.sent")
    assert matches("*", "anything.at.all")
    assert not matches("market.cleared", "market")


def test_failing_handler_is_counted_and_others_still_run() -> None:
    bus = EventBus()
    got: list[int] = []

    def bad(e: Event) -> None:
        raise RuntimeError("boom")

    bus.subscribe("x", bad)
    bus.subscribe("x", lambda e: got.append(e.seq))
    bus.emit(0, "x.y")
    bus.emit(0, "x.z")
    assert got == [0, 1] and bus.errors == 2
    strict = EventBus(strict=True)
    strict.subscribe("x", bad)
    with pytest.raises(RuntimeError):
        strict.emit(0, "x")


def test_unsubscribe_and_has_subscribers() -> None:
    bus = EventBus()
    sub = bus.subscribe("action.result", lambda e: None)
    assert bus.has_subscribers("action.result") and not bus.has_subscribers("news.published")
    bus.unsubscribe(sub)
    assert not bus.has_subscribers("action.result")


def test_journal_has_tick_type_payload_in_order(tmp_path) -> None:
    path = tmp_path / "events.jsonl"
    with EventBus(journal=path) as bus:
        bus.emit(1, "news.published", {"headline": "Steel output collapses", "sentiment": -0.7})
        bus.publish(ModuleNotice(tick=1, type="module.memory.activated", payload={"unit": "m1"}))
        bus.emit(2, "market.cleared", {"sold": float("nan")})
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(x["tick"], x["type"], x["seq"]) for x in lines] == [
        (1, "news.published", 0), (1, "module.memory.activated", 1), (2, "market.cleared", 2),
    ]  # fmt: skip
    assert lines[0]["payload"]["headline"] == "Steel output collapses"
    assert lines[2]["payload"]["sold"] is None  # non-finite floats become null: the file stays valid JSON
    assert [e.type for e in read_journal(path)] == [
        "news.published",
        "module.memory.activated",
        "market.cleared",
    ]


def test_bad_types_are_rejected() -> None:
    for bad in ("", "News", "news..published", ".news", "news published"):
        with pytest.raises(ValidationError):
            Event(tick=0, type=bad)
    with pytest.raises(ValidationError):
        ModuleNotice(tick=0, type="memory.activated")
    with pytest.raises(ValueError):
        EventBus().subscribe("Bad Pattern", lambda e: None)


def test_journal_line_is_the_dump_of_the_event_whatever_the_payload() -> None:
    """Plain payloads take the encoder's direct path; the line equals the sorted dump either way."""
    from enum import StrEnum

    import numpy as np

    class Side(StrEnum):
        BUY = "BUY"

    payloads = [
        {"b": (1, 2.5), "a": {"z": "中文\n", "y": [np.float64(0.1), True, None]}, "side": Side.BUY},
        {"model": ModuleNotice(tick=0, type="module.x"), "n": float("inf")},
    ]
    for payload in payloads:
        event = Event(tick=3, type="market.cleared", payload=payload, source="market", seq=4)
        dumped = json.dumps(json.loads(json.dumps(event.model_dump(mode="json"))), sort_keys=True,
                            ensure_ascii=False, separators=(",", ":"))  # fmt: skip
        assert event.to_json() == dumped.replace("Infinity", "null")
