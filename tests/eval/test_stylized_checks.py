"""The per-asset facts table: monthly autocorrelation, share of auctions that trade, and which facts hold."""

from __future__ import annotations

import numpy as np
import pandas as pd

from psychoagent.eval.stylized import fact_checks, monthly_acf1, stylized_facts


def frame(prices: np.ndarray, volume: np.ndarray, asset: str = "stock:x", rounds: int = 20) -> pd.DataFrame:
    n = prices.size
    return pd.DataFrame({"period": np.arange(1, n + 1), "tick": np.arange(n) // rounds + 1, "asset": asset,
                         "price": prices, "volume": volume})  # fmt: skip


def test_monthly_autocorrelation_sees_month_end_reversals_and_trade_share_counts_auctions() -> None:
    rng = np.random.default_rng(3)
    months, rounds = 240, 20
    walk = np.exp(np.cumsum(rng.normal(0, 0.01, months * rounds)))
    bounce = np.repeat(np.exp(0.05 * (-1.0) ** np.arange(months)), rounds)  # month-end levels alternate
    volume = np.where(np.arange(months * rounds) % 4 == 0, 0.0, 1.0)  # one auction in four without a trade
    assets = pd.concat([frame(walk, volume, "walk"), frame(walk * bounce, volume, "bounce")])
    _, per = stylized_facts(assets)
    assert abs(per["walk"]["acf_month1"]) < 0.2 and per["bounce"]["acf_month1"] < -0.4
    assert per["walk"]["traded_share"] == 0.75
    header, rows = fact_checks(per)
    table = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    monthly = next(h for h in header if h.startswith("returns unpredictable"))
    traded = next(h for h in header if h.startswith("auctions that trade"))
    assert table["bounce"][monthly].endswith("not met") and table["walk"][traded].endswith("not met")
    assert np.isnan(monthly_acf1(pd.DataFrame({"price": [1.0, 2.0]})))
