"""Fit the update/contradiction pair scorer on the DEV split of the generated conflict scenarios.

Pairs: (older fact, newer fact) with the scenario's label, plus (distractor, newer fact) and (older fact, later
distractor) pairs labelled unrelated, as detection meets them in a namespace; same-person facts of other domains
(compatible); with --pronouns, the dev pairs again with the newer fact naming its person by a pronoun; with
--person-sources, the dev source conflicts again told by two people (the dev forms with the generator's names).
A value-only correction is read by the vector of the sentence it stands for (`memory.detect.rebuilt`, as on the
write path). With --same-wording, the dev changes again in the older fact's own wording. Each pair enters
once per embedder named (dense similarity of e5 and of the hashing embedder, so the generic
scorer serves both). Multinomial logistic regression with L2 (scipy L-BFGS), balanced class weights. With --cv N
the thresholds are chosen on dev by leave-families-out cross-validation (`benchmarks/pair_cv.py`, generated pairs
only); test is only reported. With --natural-weight W, the dev sets written in plain words (--natural; never
natural_dev4 or natural_dev10, the validation sets, nor natural_untouched) join, each pair weighing W generated
ones: their updates, their compatible pairs (as elaborations) and each newer fact after a filler and after another
item (unrelated). With --joint BAND the fit is a reader (`memory.conflicts.reader`): each pair is also read as one
passage embedded whole, and it re-scores the pairs whose first-stage probability reaches BAND.

    python -m benchmarks.fit_pairs --vectors --pronouns --person-sources --l2 0.1 --more-seeds 1,2 \
        --update-threshold 0.5 --contradiction-threshold 0.5 --swaps --natural-weight 10 \
        --out src/psychoagent/data/pair_scorer_e5.json
    (the same with --joint 0.2 --out src/psychoagent/data/pair_reader_e5.json)
    python -m benchmarks.fit_pairs --embedders e5,hash --person-sources --l2 0.1 \
        --update-threshold 0.5 --contradiction-threshold 0.6 --out src/psychoagent/data/pair_scorer.json

What each option measured (seeds, --same-wording, --leads, --spans, --vector-l2, --swaps, the L2, the masked
second stage) is in docs/benchmarks.md, "Pair scorer options: what was measured".
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.conflict_gen import generate, split
from benchmarks.pair_data import (
    NATURAL_DEV,
    cross_pairs,
    lead_variants,
    natural_pairs,
    pairs_of,
    person_sources,
    pronoun_variants,
    same_wording,
)
from benchmarks.pair_vectors import centred, embed_all, word_table
from benchmarks.softmax_fit import fit, write_weights
from psychoagent.embed import get_embedder
from psychoagent.memory.conflicts.detect import LABELS, PairScorer, normalised_similarity, rebuilt
from psychoagent.memory.conflicts.pairs import (
    VECTOR_FEATURES,
    comparable,
    pair_features,
    vector_features,
)
from psychoagent.memory.conflicts.reader import JOINT_FEATURES, joint_features, joint_text
from psychoagent.memory.conflicts.spans import (
    SPAN_FEATURES,
    SWAP_FEATURES,
    WordVectors,
    span_features,
    swap_features,
)
from psychoagent.memory.conflicts.values import swapped


def features(
    pairs: list[tuple[str, str, str]],
    vectors: dict[str, dict[str, np.ndarray]],
    with_vectors: bool = False,
    words: WordVectors | None = None,
    swaps: dict[str, np.ndarray] | None = None,
    joint: dict[str, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows (once per embedder; with the embedding interactions and, given `words`, the span features
    and, given `swaps` (vectors of the value-swapped older sentences), the swap features and, given `joint`
    (vectors of the pairs as one passage), the reader's joint block appended) and label indices."""
    floors = {"e5": get_embedder("e5").similarity_floor, "hash": get_embedder("hash").similarity_floor}  # type: ignore[attr-defined]
    rows, labels = [], []
    for name, vecs in vectors.items():
        for old, new, label in pairs:
            full = rebuilt(old, new)  # read by the rebuilt sentence's vector, as the write path does
            new_vec = vecs[new] if full is None else vecs[full]
            dense = float(normalised_similarity(float(vecs[old] @ new_vec), floors[name]))
            row = pair_features(old, new, dense)
            row = np.concatenate([row, vector_features(vecs[old], new_vec)]) if with_vectors else row
            if words is not None:
                row = np.concatenate([row, span_features(old, new, words, words.center)])
            if swaps is not None:
                swap = swapped(old, new)
                vec = swaps[swap] if swap is not None else None
                row = np.concatenate([row, swap_features(vecs[old], new_vec, vec, floors[name])])
            if joint is not None:
                row = np.concatenate([row, joint_features(vecs[old], new_vec, joint[joint_text(old, new)])])
            rows.append(row)
            labels.append(LABELS.index(label))
    return np.asarray(rows), np.asarray(labels)


def _as_scorer(
    weights: dict[str, Any],
    with_vectors: bool,
    words: WordVectors | None = None,
    swaps: bool = False,
    joint_band: float | None = None,
    joint_weight: float = 0.5,
) -> dict[str, Any]:
    """Fitted weights marked with the embedder whose vectors they read (e5 scorer) and, given the word table,
    the span features and the word center they were computed with; a reader's with its joint block and band."""
    if with_vectors:
        weights["vector"] = {
            "embedder": get_embedder("e5").name,
            "dim": 384,
            "features": list(VECTOR_FEATURES),
        }
    if words is not None and words.center is not None:
        center = [round(float(v), 6) for v in words.center]
        weights["spans"] = {"features": list(SPAN_FEATURES), "center": center}
    if swaps:
        weights["swaps"] = {"features": list(SWAP_FEATURES)}
    if joint_band is not None:
        weights["joint"] = {"features": list(JOINT_FEATURES), "band": joint_band, "weight": joint_weight}
    return weights


def evaluate(scorer: PairScorer, x: np.ndarray, y: np.ndarray, upd: float, con: float) -> dict[str, float]:
    """Pair-level rates: changes found (update or contradiction judged), compatible pairs flagged."""
    p = scorer.probabilities(x)
    best = p.argmax(axis=1)
    flagged = ((best == 0) & (p[:, 0] >= upd)) | ((best == 1) & (p[:, 1] >= con))
    change = (y == 0) | (y == 1)
    compatible = y == 2
    unrelated = y == 3
    return {
        "changes_found": float(flagged[change].mean()) if change.any() else float("nan"),
        "updates_as_update": float(((best == 0) & (p[:, 0] >= upd))[y == 0].mean()) if (y == 0).any() else float("nan"),
        "compatible_flagged": float(flagged[compatible].mean()) if compatible.any() else float("nan"),
        "unrelated_flagged": float(flagged[unrelated].mean()) if unrelated.any() else float("nan"),
    }  # fmt: skip


SWITCHES: tuple[tuple[str, str], ...] = (
    ("--vectors", "read e5 embedding interactions (e5 scorer)"),
    ("--spans", "read the e5 vectors of the differing words (write-time scorer)"),
    ("--swaps", "read the e5 vector of the value-swapped older sentence (write time)"),
    ("--pronouns", "add dev pairs whose newer fact names its person by a pronoun"),
    ("--person-sources", "add dev source conflicts told by two people"),
    ("--same-wording", "add dev changes told in the older fact's own wording"),
    ("--leads", "add dev pairs again with the newer fact after a dev restatement's lead"),
    ("--keep-thresholds", "with --cv: report the cross-validated rates, keep the given"),
    ("--document", "only write the packaged scorers' rates to docs"),
)
"""The on/off options of `main`: what each adds to the training data or the scorer's reading."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument(
        "--embedders", default="e5,hash", help="comma-separated embedders whose similarity trains"
    )
    parser.add_argument(
        "--cross", type=int, default=3000, help="same-subject other-attribute pairs added to dev"
    )
    parser.add_argument("--update-threshold", type=float, default=0.6, help="chosen on dev pairs")
    parser.add_argument("--contradiction-threshold", type=float, default=0.6)
    parser.add_argument(
        "--vector-l2",
        type=float,
        default=None,
        help="L2 of the embedding-interaction weights (default: --l2)",
    )
    parser.add_argument(
        "--hidden", type=int, default=0, help="tanh units added to the logits (0: linear only)"
    )
    parser.add_argument(
        "--more-seeds", default="", help="comma-separated generator seeds whose DEV scenarios train too"
    )
    parser.add_argument(
        "--cv", type=int, default=0, help="choose the thresholds by this many leave-families-out folds on dev"
    )
    parser.add_argument(
        "--conflict-mass", type=float, default=0.9, help="the write path's update+contradiction mass rule"
    )
    parser.add_argument("--cache", type=Path, help="bench_conflicts --cache file whose e5 vectors are reused")
    parser.add_argument(
        "--natural-weight",
        type=float,
        default=0.0,
        help="add the dev pairs written in plain words (--natural), each weighing this many generated pairs "
        "(0: none)",
    )
    parser.add_argument(
        "--natural",
        default=",".join(NATURAL_DEV),
        help="comma-separated plain-word dev sets (benchmarks/data)",
    )
    parser.add_argument(
        "--joint",
        type=float,
        default=None,
        metavar="BAND",
        help="fit a reader: also read the pair embedded as one passage; it re-scores the pairs whose first-stage "
        "update or contradiction probability reaches BAND, its probabilities averaged with the first stage's "
        "(--joint-weight its share)",
    )
    parser.add_argument("--joint-weight", type=float, default=0.5)
    parser.add_argument("--out", type=Path, default=None, help="write the fitted weights here (JSON)")
    for flag, what in SWITCHES:
        parser.add_argument(flag, action="store_true", help=what)
    args = parser.parse_args()
    if args.document:
        from benchmarks.pair_docs import document

        document()
        return
    t0 = time.perf_counter()
    dev, test = split(generate(args.seed))
    print(f"dev {len(dev)} scenarios {Counter(i.label for i in dev)}; test {len(test)}")
    extra = [split(generate(int(s)))[0] for s in args.more_seeds.split(",") if s.strip()]
    everything = [item for group in (dev, *extra) for item in group]
    tagged = [(item.family, p) for item in everything for p in pairs_of(item)]
    tagged += [("cross", p) for p in cross_pairs(dev, args.cross, args.seed)]
    for item in everything:
        if args.pronouns:
            tagged += [(item.family, p) for p in pronoun_variants([item])]
    if args.person_sources:
        tagged += [("source_conflict", p) for p in person_sources(everything, args.seed)]
    if args.same_wording:
        tagged += [(family, (old, new, label)) for family, old, new, label in same_wording(everything)]
    if args.leads:
        tagged += [
            (family, (old, new, label)) for family, old, new, label in lead_variants(everything, args.seed)
        ]
    tagged = [(f, p) for f, p in tagged if comparable(p[0], p[1])]  # others never reach the scorer
    dev_pairs = [p for _, p in tagged]
    test_pairs = {lang: [p for item in test if item.lang == lang for p in pairs_of(item) if comparable(p[0], p[1])]
                  for lang in ("en", "zh")}  # fmt: skip
    print("comparable pairs: dev", len(dev_pairs), {k: len(v) for k, v in test_pairs.items()},
          "- rates below are over these; the rest are never flagged")  # fmt: skip
    written = (
        natural_pairs([n for n in args.natural.split(",") if n.strip()]) if args.natural_weight > 0 else []
    )
    texts = sorted({t for pairs in (dev_pairs, written, *test_pairs.values()) for p in pairs for t in p[:2]}
                   | {t for pairs in (dev_pairs, written, *test_pairs.values()) for p in pairs
                      if (t := rebuilt(p[0], p[1])) is not None})  # fmt: skip
    names = ["e5"] if args.vectors else args.embedders.split(",")
    vectors = {name: embed_all(texts, name, args.cache) for name in names}
    words = None
    if args.spans:
        words = centred(word_table([*dev_pairs, *test_pairs["en"], *test_pairs["zh"]], args.cache), dev_pairs)
    swaps = None
    if args.swaps:
        every = [*dev_pairs, *written, *test_pairs["en"], *test_pairs["zh"]]
        swaps = embed_all(
            sorted({t for p in every if (t := swapped(p[0], p[1])) is not None}), "e5", args.cache
        )
    joint = None
    if args.joint is not None:
        every = [*dev_pairs, *written, *test_pairs["en"], *test_pairs["zh"]]
        joint = embed_all(sorted({joint_text(p[0], p[1]) for p in every}), "e5", args.cache)
    x, y = features(dev_pairs, vectors, args.vectors, words, swaps, joint)
    sample_weight = None
    if written:
        xn, yn = features(written, vectors, args.vectors, words, swaps, joint)
        print(f"plain-word dev pairs: {len(written)} (weight {args.natural_weight:g})")
        x, y = np.vstack([x, xn]), np.concatenate([y, yn])
        sample_weight = np.concatenate([np.ones(len(y) - len(yn)), np.full(len(yn), args.natural_weight)])
    weights = _as_scorer(
        fit(x, y, args.l2, args.hidden, args.seed, args.vector_l2, sample_weight),
        args.vectors,
        words,
        swaps is not None,
        args.joint,
        args.joint_weight,
    )
    scorer = PairScorer(weights)
    upd, con = args.update_threshold, args.contradiction_threshold
    chosen: dict[str, Any] = {}
    if args.cv:
        from benchmarks import pair_cv

        probs = pair_cv.out_of_family(
            dev, tagged, lambda pairs: features(pairs, vectors, args.vectors, words, swaps, joint),
            lambda xx, yy: _as_scorer(fit(xx, yy, args.l2, args.hidden, args.seed, args.vector_l2), args.vectors,
                                      words, swaps is not None),
            folds=args.cv,
        )  # fmt: skip
        found = pair_cv.choose(dev, probs, args.conflict_mass)
        if (
            found is None or args.keep_thresholds
        ):  # keep the given thresholds, with their cross-validated rates
            chosen = pair_cv.rates_at(dev, probs, upd, con, args.conflict_mass) | {
                "cv_bound_met": found is not None
            }
            if found is not None:
                chosen["cv_best"] = {
                    k: v for k, v in found.items() if k in ("update", "contradiction", "cv_flagged")
                }
        else:
            chosen = found | {"cv_bound_met": True}
        upd, con = float(chosen["update"]), float(chosen["contradiction"])
        print("cross-validation on dev:", chosen)
    report: dict[str, Any] = {"dev": evaluate(scorer, x, y, upd, con)}
    for lang, pairs in test_pairs.items():
        for name in vectors:
            xt, yt = features(pairs, {name: vectors[name]}, args.vectors, words, swaps, joint)
            report[f"test_{lang}_{name}"] = evaluate(scorer, xt, yt, upd, con)
    for key, value in report.items():
        print(key, {k: round(v, 3) for k, v in value.items()})
    if args.out:
        write_weights(args.out, weights, {
            "fitted_by": "benchmarks/fit_pairs.py", "generator_seed": args.seed, "l2": args.l2,
            "hidden": args.hidden, "vector_l2": args.vector_l2, "more_seeds": args.more_seeds, "pronouns": args.pronouns,
            "dev_scenarios": len(dev), "dev_pairs": len(y), "date": time.strftime("%Y-%m-%d"),
            "pair_rates": {k: {m: round(v, 4) for m, v in r.items()} for k, r in report.items()},
            "thresholds": {"update": upd, "contradiction": con}, "person_sources": args.person_sources,
            "same_wording": args.same_wording, "spans": args.spans, "swaps": args.swaps,
            "natural": args.natural if args.natural_weight > 0 else "", "natural_weight": args.natural_weight, "joint_band": args.joint, "joint_weight": args.joint_weight,
            "cross_validation": {k: v for k, v in chosen.items() if k.startswith("cv")} | {"folds": args.cv},
        })  # fmt: skip
    print(f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
