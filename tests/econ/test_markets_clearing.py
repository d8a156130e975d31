"""The call auction as a pure function: conservation, limit prices, tie-breaking, allocation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psychoagent.econ.markets.clearing import call_auction

prices = st.floats(min_value=0.5, max_value=2.0, allow_nan=False)
sizes = st.floats(min_value=0.01, max_value=100.0, allow_nan=False)
book = st.lists(st.tuples(prices, sizes), min_size=0, max_size=25)


@settings(max_examples=200, deadline=None)
@given(bids=book, asks=book, last=prices)
def test_clearing_conserves_units_and_respects_limits(bids, asks, last) -> None:
    bp, bq = (np.array([b[i] for b in bids], dtype=float) for i in (0, 1))
    ap, aq = (np.array([a[i] for a in asks], dtype=float) for i in (0, 1))
    res = call_auction(bp, bq, ap, aq, last)
    assert res.bid_fill.sum() == pytest.approx(res.volume, rel=1e-9, abs=1e-9)
    assert res.ask_fill.sum() == pytest.approx(res.volume, rel=1e-9, abs=1e-9)
    assert (res.bid_fill <= bq * (1 + 1e-12)).all() and (res.ask_fill <= aq * (1 + 1e-12)).all()
    assert (res.bid_fill >= 0).all() and (res.ask_fill >= 0).all()
    # nobody trades beyond its limit: buyers pay at most their limit, sellers get at least theirs
    assert (bp[res.bid_fill > 0] >= res.price).all() and (ap[res.ask_fill > 0] <= res.price).all()
    # cash: what buyers pay is what sellers receive at the one price
    assert (res.bid_fill * res.price).sum() == pytest.approx(
        (res.ask_fill * res.price).sum(), rel=1e-9, abs=1e-9
    )
    if bp.size and ap.size and bp.max() >= ap.min():
        assert res.volume > 0
    else:
        assert res.volume == 0 and res.price == last


def test_price_maximises_volume_then_balance_then_closeness() -> None:
    # demand 10 @ >= 1.0, supply 6 @ <= 0.9 and 4 more @ <= 1.0: 10 units trade only at 1.0
    res = call_auction(np.array([1.0]), np.array([10.0]), np.array([0.9, 1.0]), np.array([6.0, 4.0]), 0.5)
    assert res.price == 1.0 and res.volume == 10.0
    # a crossed book with equal volume anywhere in [0.9, 1.1]: the candidate closest to the last price wins
    bp, bq, ap, aq = np.array([1.1]), np.array([5.0]), np.array([0.9]), np.array([5.0])
    assert call_auction(bp, bq, ap, aq, 1.0).price == 1.0
    assert call_auction(bp, bq, ap, aq, 2.0).price == 1.1
    assert call_auction(bp, bq, ap, aq, 0.1).price == 0.9


def test_price_priority_then_pro_rata() -> None:
    bp = np.array([1.2, 1.0, 1.0])
    bq = np.array([4.0, 6.0, 2.0])
    res = call_auction(bp, bq, np.array([1.0]), np.array([8.0]), 1.0)
    assert res.price == 1.0 and res.volume == 8.0
    # the better bid is served first, the 4 left are shared 3:1 at the marginal level
    np.testing.assert_allclose(res.bid_fill, [4.0, 3.0, 1.0])
    np.testing.assert_allclose(res.ask_fill, [8.0])


def test_identical_orders_get_identical_fills_whatever_their_position() -> None:
    bp, bq = np.array([1.0, 1.0, 1.0]), np.array([2.0, 5.0, 2.0])
    res = call_auction(bp, bq, np.array([1.0]), np.array([3.0]), 1.0)
    assert res.bid_fill[0] == res.bid_fill[2]
    flipped = call_auction(bp[::-1], bq[::-1], np.array([1.0]), np.array([3.0]), 1.0)
    np.testing.assert_allclose(flipped.bid_fill[::-1], res.bid_fill)


@pytest.mark.parametrize(
    "bad",
    [
        {"bid_px": [float("nan")]},
        {"bid_px": [-1.0]},
        {"ask_q": [0.0]},
        {"ask_q": [float("inf")]},
    ],
)
def test_malformed_books_are_refused(bad) -> None:
    args = {"bid_px": [1.0], "bid_q": [1.0], "ask_px": [1.0], "ask_q": [1.0]}
    args.update(bad)
    with pytest.raises(ValueError, match="finite"):
        call_auction(*(np.array(args[k], dtype=float) for k in ("bid_px", "bid_q", "ask_px", "ask_q")), 1.0)
