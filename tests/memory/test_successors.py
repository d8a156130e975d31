"""Recall: the successor of a recalled superseded fact takes its place, even when the query matches it poorly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from psychoagent import Memory
from psychoagent.memory.recall.successors import successor_lift

T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)


def test_successor_lift_raises_the_successor_to_the_stale_score_along_a_chain() -> None:
    scores = np.array([0.9, 0.2, 0.1, 0.5])
    stale = np.array([True, True, False, False])
    factor = successor_lift(scores, stale, {0: 1, 1: 2})  # 0 -> 1 -> 2: the chain ends at the current fact
    lifted = scores * factor
    assert lifted[1] == lifted[2] == 0.9  # every later version gets at least the stale fact's score
    assert factor[0] == factor[3] == 1.0  # the stale fact and unrelated candidates are left alone
    assert np.all(factor >= 1.0)
    assert np.all(successor_lift(scores, np.zeros(4, dtype=bool), {0: 1}) == 1.0)


def test_a_value_only_correction_is_recalled_in_place_of_the_fact_it_supersedes() -> None:
    mem = Memory(embedder="hash")
    old = mem.observe("Ines' monthly budget is 3000 dollars.", timestamp=T0)
    for day, text in enumerate(["The printer is out of toner.", "The café opens at seven.",
                                "The train to Graz leaves from platform 4."], 1):  # fmt: skip
        mem.observe(text, timestamp=T0 + timedelta(days=day))
    new = mem.supersede(old.id, "Sorry, I meant 3400, not 3000.", timestamp=T0 + timedelta(days=9))
    hits = mem.recall("What is Ines' monthly budget?", k=2, now=T0 + timedelta(days=10))
    ids = [h.unit.id for h in hits]
    assert ids[0] == new.id and ids[1] == old.id  # the current value first, the stale one right after it
    assert hits[0].parts.get("successor", 1.0) > 1.0
    # what was true before the correction: the old fact alone, nothing lifted
    then = mem.recall("What is Ines' monthly budget?", k=2, at=T0 + timedelta(days=5))
    assert then[0].unit.id == old.id and new.id not in [h.unit.id for h in then]


def test_a_detected_update_indexes_each_unit_once(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "m.db"), embedder="hash")
    old = mem.observe("Tom works as a carpenter.", timestamp=T0)
    new = mem.observe_many([{"text": "Tom now works as a nurse.", "timestamp": T0 + timedelta(days=3)},
                            {"text": "Tom's sister lives in Graz.", "timestamp": T0 + timedelta(days=4)}])  # fmt: skip
    assert mem.get(old.id).invalid_at is not None  # type: ignore[union-attr]
    state = mem.affect_state_of_namespace()
    for ids in state.by_subject.values():
        assert len(ids) == len(set(ids))  # the batch's own rows are not caught up again as another's
    assert sum(ids.count(new[0].id) for ids in state.by_subject.values()) >= 1


def test_each_version_of_a_chain_ranks_below_the_next() -> None:
    mem = Memory(embedder="hash")
    first = mem.observe("Emma's parcel will be delivered on Monday.", timestamp=T0)
    mem.observe("The café opens at seven.", timestamp=T0 + timedelta(days=1))
    second = mem.supersede(
        first.id, "Emma's parcel delivery moved to Friday.", timestamp=T0 + timedelta(days=2)
    )
    third = mem.supersede(second.id, "Emma's flight leaves at 10 am.", timestamp=T0 + timedelta(days=3))
    hits = mem.recall("When will Emma's parcel be delivered?", k=3, now=T0 + timedelta(days=4))
    score = {h.unit.id: h.score for h in hits}
    assert score[third.id] > score[second.id] > score[first.id]  # no two versions tie
