"""Markets: call-auction and trading-round throughput, and the stylized facts of the returns over seeds.

Run from the repository root: `python -m benchmarks.bench_markets` (add `--quick` for a smoke run). Speed: the
pure call auction on books of several sizes, and whole economies of 1,000 households with markets on and off
(the difference is the cost of the trading sessions). Stylized facts (Cont 2001): 1,000 households x 240 months
x 20 rounds = 4,800 auctions per asset, per seed, with information arrival (`TradingConfig.information`) on, as
by default, and off (the markets before it); reported as they come out, nothing is tuned to them here.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from benchmarks._report import write_section

SEEDS = (1, 2, 3)
FACTS = ("sd", "zero_share", "acf_r1", "acf_abs1", "acf_abs5", "acf_abs10", "kurtosis", "kurtosis_20",
         "corr_volume_abs", "leverage")  # fmt: skip


def auction_speed(sizes: tuple[int, ...], repeats: int) -> list[tuple[int, float]]:
    """Auctions per second of `call_auction` on random books with n bids and n asks around price 1."""
    from psychoagent.econ.markets.clearing import call_auction

    rng = np.random.default_rng(0)
    out = []
    for n in sizes:
        books = [(np.exp(rng.normal(0.01, 0.02, n)), rng.uniform(1, 10, n), np.exp(rng.normal(-0.01, 0.02, n)),
                  rng.uniform(1, 10, n)) for _ in range(repeats)]  # fmt: skip
        t0 = time.perf_counter()
        for bp, bq, ap, aq in books:
            call_auction(bp, bq, ap, aq, 1.0)
        out.append((n, repeats / (time.perf_counter() - t0)))
    return out


def economy(
    households: int, ticks: int, seed: int, trading: bool, information: bool = True
) -> tuple[float, pd.DataFrame]:
    """Seconds for one run (heuristic policy, agents table recorded) and its assets frame."""
    from psychoagent.econ.config import EconomyConfig
    from psychoagent.econ.markets import ASSET_COLUMNS, TradingConfig
    from psychoagent.econ.markets.config import InformationConfig
    from psychoagent.econ.model import EconomyModel

    info = InformationConfig(enabled=information)
    cfg = EconomyConfig(trading=TradingConfig(enabled=trading, information=info))
    t0 = time.perf_counter()
    model = EconomyModel(cfg, seed=seed, households=households)
    model.run(ticks)
    seconds = time.perf_counter() - t0
    model.close()
    return seconds, pd.DataFrame(model.markets.records, columns=list(ASSET_COLUMNS))


def main() -> None:
    from psychoagent.econ.markets.stats import facts_table

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small run; prints, does not write the report")
    args = parser.parse_args()
    households, ticks = (200, 24) if args.quick else (1000, 240)
    seeds = SEEDS[:1] if args.quick else SEEDS
    lines = ["Auction speed (`call_auction`, n bids + n asks, random books):", "",
             "| orders per side | auctions/s |", "|---:|---:|"]  # fmt: skip
    for n, rate in auction_speed((10, 100, 1000), 50 if args.quick else 500):
        lines.append(f"| {n} | {rate:,.0f} |")
    off, _ = economy(households, ticks, seeds[0], trading=False)
    rows, frames = [], []
    for seed in seeds:
        on, assets = economy(households, ticks, seed, trading=True)
        rows.append((seed, on))
        frames.append(assets.assign(seed=seed, information="on"))
    for seed in seeds:
        _, assets = economy(households, ticks, seed, trading=True, information=False)
        frames.append(assets.assign(seed=seed, information="off"))
    on = float(np.mean([s for _, s in rows]))
    rounds = ticks * 20
    auctions = rounds * frames[0]["asset"].nunique()  # timing: the default markets (information on)
    lines += ["", f"Whole economy, {households:,} households x {ticks} months, heuristic policy, 20 rounds a month:",
              "", "| run | seconds | trading rounds/s | auctions/s |", "|---|---:|---:|---:|",
              f"| markets off (seed {seeds[0]}) | {off:.1f} | | |",
              f"| markets on (mean of {len(seeds)} seeds) | {on:.1f} | {rounds / max(on - off, 1e-9):,.0f} "
              f"| {auctions / max(on - off, 1e-9):,.0f} |",
              "", f"Markets cost {on / off:.1f}x the macro core's time (rounds/s counts the extra time only).", ""]  # fmt: skip
    lines += [f"Stylized facts per asset and seed ({rounds:,} auctions each; |ACF_1(r)| band 2/sqrt(T) = "
              f"{2 / np.sqrt(rounds):.3f}; kurtosis is excess kurtosis, kurtosis_20 of 20-round sums; "
              "leverage = corr(r, |r| next); information: arrival of information on, as by default, or off):", "",
              "| information | seed | asset | " + " | ".join(FACTS) + " |",
              "|---|---|---|" + "---:|" * len(FACTS)]  # fmt: skip
    means: dict[str, list[pd.DataFrame]] = {}
    for frame in frames:
        table = facts_table(frame)
        mode = str(frame["information"].iloc[0])
        means.setdefault(mode, []).append(table[table.index.str.startswith("stock:")])
        for asset, row in table.iterrows():
            cells = " | ".join(f"{row[c]:.3f}" for c in FACTS)
            lines.append(f"| {mode} | {int(frame['seed'].iloc[0])} | {asset} | {cells} |")
    lines += ["", "Mean over the stocks and seeds:", "", "| information | " + " | ".join(FACTS) + " |",
              "|---|" + "---:|" * len(FACTS)]  # fmt: skip
    for mode, tables in means.items():
        mean = pd.concat(tables).mean()
        lines.append(f"| {mode} | " + " | ".join(f"{mean[c]:.3f}" for c in FACTS) + " |")
    body = "\n".join(lines) + "\n"
    print(body)
    if not args.quick:
        write_section("bench_markets", "Markets", body)


if __name__ == "__main__":
    main()
