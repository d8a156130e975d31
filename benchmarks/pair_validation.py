"""Pair-level validation of the e5 scorers: plain-word sets never fitted on, and the generated test split.

For each validation set (`pair_data.VALIDATION`) and the generated test split, the comparable pairs are scored as a
write scores them (the first stage, then the reader on the pairs in its band, averaged) and reported: the AUC of
changes against compatible pairs (update + contradiction probability), the share of changes and of compatible and
unrelated pairs flagged by the write path's rule (`pair_cv.flags`: the scorer's thresholds and
`ConflictConfig.conflict_mass`). The second stage and a referee are left out. Vectors come from the fitting cache
(`pair_vectors`).

    python -m benchmarks.pair_validation                       # the packaged scorer and reader
    python -m benchmarks.pair_validation --scorer S.json --reader R.json
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.conflict_gen import generate, split
from benchmarks.fit_pairs import features
from benchmarks.pair_cv import flags
from benchmarks.pair_data import VALIDATION, natural_pairs, pairs_of
from benchmarks.pair_vectors import embed_all
from psychoagent.memory.config import ConflictConfig
from psychoagent.memory.conflicts.detect import LABELS, PairScorer, reader_for, rebuilt
from psychoagent.memory.conflicts.pairs import comparable
from psychoagent.memory.conflicts.reader import joint_text
from psychoagent.memory.conflicts.values import swapped

Pair = tuple[str, str, str]


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    pos, neg = scores[positive], scores[~positive]
    if not len(pos) or not len(neg):
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def score(scorer: PairScorer, reader: PairScorer, pairs: list[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """Label probabilities of the pairs as a write computes them before its second stage, and the label indices."""
    every = sorted(
        {t for p in pairs for t in p[:2]} | {t for p in pairs if (t := rebuilt(p[0], p[1])) is not None}
    )
    vecs = {"e5": embed_all(every, "e5")}
    swaps = embed_all(sorted({t for p in pairs if (t := swapped(p[0], p[1])) is not None}), "e5")
    joint = embed_all(sorted({joint_text(p[0], p[1]) for p in pairs}), "e5")
    first, labels = features(pairs, vecs, True, None, swaps)
    probs = scorer.probabilities(first)
    band = np.maximum(probs[:, 0], probs[:, 1]) >= reader.joint_band
    if band.any():
        rows, _ = features([p for p, b in zip(pairs, band, strict=True) if b], vecs, True, None, swaps, joint)
        weight = reader.joint_weight
        probs[band] = (1 - weight) * probs[band] + weight * reader.probabilities(rows)
    return probs, labels


def rates(scorer: PairScorer, probs: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """AUC of changes against compatible pairs, and the shares the write path's rule flags."""
    mass = ConflictConfig().conflict_mass
    flagged = flags(probs, scorer.update_threshold, scorer.contradiction_threshold, mass)
    change, compatible = labels <= LABELS.index("contradiction"), labels == LABELS.index("elaboration")
    related = change | compatible
    share = {
        "auc": auc((probs[:, 0] + probs[:, 1])[related], change[related]),
        "changes": float(flagged[change].mean()) if change.any() else float("nan"),
        "compatible": float(flagged[compatible].mean()) if compatible.any() else float("nan"),
        "unrelated": float(flagged[labels == LABELS.index("unrelated")].mean()),
    }
    return share | {"n_changes": int(change.sum()), "n_compatible": int(compatible.sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scorer", type=Path, default=None, help="first-stage weights (default: packaged e5)"
    )
    parser.add_argument("--reader", type=Path, default=None, help="reader weights (default: packaged e5)")
    parser.add_argument("--sets", default=",".join(VALIDATION), help="comma-separated plain-word sets")
    args = parser.parse_args()
    scorer = PairScorer.load(args.scorer, "e5-small")
    reader = PairScorer.load(args.reader) if args.reader else reader_for(ConflictConfig(), "e5-small", scorer)
    if reader is None:
        raise SystemExit("no pair reader for e5-small")
    groups: dict[str, list[Pair]] = {name: natural_pairs([name]) for name in args.sets.split(",") if name}
    groups["all plain-word sets above"] = [p for pairs in groups.values() for p in pairs]
    test = split(generate(0))[1]
    groups["generated test split"] = [p for item in test for p in pairs_of(item) if comparable(p[0], p[1])]
    print("| set | changes | compatible | AUC | changes flagged | compatible flagged | unrelated flagged |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, pairs in groups.items():
        r = rates(scorer, *score(scorer, reader, pairs))
        print(f"| {name} | {r['n_changes']} | {r['n_compatible']} | {r['auc']:.3f} | {r['changes']:.3f} | "
              f"{r['compatible']:.3f} | {r['unrelated']:.4f} |")  # fmt: skip


if __name__ == "__main__":
    main()
