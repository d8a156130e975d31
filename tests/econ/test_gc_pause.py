"""Runs collect garbage less often while stepping, and the collector's settings come back afterwards."""

from __future__ import annotations

import gc

import pytest

from psychoagent.econ.gc_pause import RUN_THRESHOLD, fewer_collections


def test_threshold_is_raised_inside_and_restored_after_even_on_error() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold()[0] == max(RUN_THRESHOLD, before[0])
        assert gc.get_threshold()[1:] == before[1:]
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), fewer_collections(10_000):
        raise RuntimeError("boom")
    assert gc.get_threshold() == before
