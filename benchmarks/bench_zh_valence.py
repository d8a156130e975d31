"""Chinese valence against a hand-rated set: Pearson and Spearman r of the heuristic appraiser's valence score.

`benchmarks/data/zh_valence.tsv` holds 90 everyday sentences (25 good news, 25 bad news, 25 plain facts, 15 mixed),
rated 1-5 like EmoBank's valence before any appraiser was run on them. EmoBank is English only, so this is the
project's check that Chinese valence is read at all, with the lexical head alone and with the e5 vector.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scipy.stats import pearsonr, spearmanr

from psychoagent.affect.heuristic import HeuristicAppraiser

DATA = Path(__file__).parent / "data" / "zh_valence.tsv"


def load(path: Path = DATA) -> tuple[list[float], list[str]]:
    """(ratings 1..5, sentences) from a rating<TAB>sentence file."""
    rows = [
        line.rstrip("\n").split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines() if line
    ]
    return [float(r) for r, _ in rows], [t for _, t in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="rating<TAB>sentence lines")
    args = parser.parse_args()
    gold, texts = load(args.data)
    appraiser = HeuristicAppraiser()
    appraiser.prepare(texts)
    print(f"{len(texts)} sentences from {args.data.name}")
    print("| head | valence Pearson r | Spearman rho | lexicon sentiment r |")
    print("|---|---:|---:|---:|")
    for name, context in (("lexical (no vector)", {"embedder": "none"}), ("combined (e5 vector)", None)):
        scores = [appraiser.scores(text, context) for text in texts]
        valence, sentiment = [s[0] for s in scores], [s[3] for s in scores]
        r, rho, sent_r = pearsonr(gold, valence)[0], spearmanr(gold, valence)[0], pearsonr(gold, sentiment)[0]
        print(f"| {name} | {r:.3f} | {rho:.3f} | {sent_r:.3f} |")


if __name__ == "__main__":
    main()
