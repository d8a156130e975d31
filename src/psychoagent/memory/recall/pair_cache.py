"""Recall's pair decisions, kept across recalls: a query asked again (an agent's loop asks about the same things
tick after tick) finds the same best candidates, and their pairs need no second reading.

The currency stage asks, for an older and a newer candidate, whether they can be about the same subject and, if
so, the scorer's update probability. Both are pure functions of the two texts, their dense similarity and the
scorer (which reads the vectors of those texts, fixed by its embedder), so they are kept per scorer under exactly
those inputs; a changed text (a forgotten unit) is another key.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any

PairKey = tuple[str, str, float]
"""(older text, newer text, their normalised dense similarity)."""

NOT_COMPARABLE = -1.0
"""Stored for a pair that cannot be about the same subject (no probability is read for it)."""


class PairDecisions:
    """A bounded least-recently-used map from `PairKey` to the update probability (or `NOT_COMPARABLE`)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[PairKey, float] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: PairKey) -> float | None:
        """The stored decision, or None when the pair was not read yet."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: PairKey, value: float) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_BY_SCORER: weakref.WeakKeyDictionary[Any, PairDecisions] = weakref.WeakKeyDictionary()
_BY_SCORER_LOCK = threading.Lock()


def decisions_for(scorer: Any, size: int) -> PairDecisions:
    """The decisions read with this scorer (a scorer loaded again from other weights starts empty)."""
    with _BY_SCORER_LOCK:
        found = _BY_SCORER.get(scorer)
        if found is None:
            found = _BY_SCORER[scorer] = PairDecisions(size)
        return found
