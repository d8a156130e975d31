"""Thresholds of the pair scorer chosen on dev by leave-families-out cross-validation.

The dev change families are dealt into folds; for each fold the scorer is fitted without that fold's families
and scores their scenario pairs, so every dev change gets a probability from a scorer that never saw its wording,
as the held-out test families will. The update and contradiction thresholds are the grid point that flags the
most of these out-of-family changes while flagging at most 5 % of the dev compatible pairs in each language.
Compatible families stay in training: held out, a compatible family was flagged above 5 % at every grid point
(the scorer knows compatible detail only from wordings it saw), so their rate here is in-sample, read strictly
(the highest conflict probability any fold gave). The one dev contradiction family (source conflicts) always
stays in training too (without it the scorer knows no contradiction) and is left out of the objective.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from psychoagent.memory.conflicts.detect import PairScorer
from psychoagent.memory.conflicts.pairs import comparable

Pair = tuple[str, str, str]
GRID = tuple(round(x, 2) for x in np.arange(0.30, 0.71, 0.05))
MAX_COMPATIBLE = 0.05
ALWAYS_TRAINED = frozenset({"source_conflict"})


def flags(p: np.ndarray, update: float, contradiction: float, mass: float) -> np.ndarray:
    """Which rows of probabilities the write path flags (the rule of `memory.detect.judge`)."""
    label_update = p[:, 0] >= p[:, 1]
    best = np.where(label_update, p[:, 0], p[:, 1])
    return (best >= np.where(label_update, update, contradiction)) | (p[:, 0] + p[:, 1] >= mass)


def out_of_family(
    items: list[Any],
    tagged: list[tuple[str, Pair]],
    featurise: Callable[[list[Pair]], tuple[np.ndarray, np.ndarray]],
    fit: Callable[[np.ndarray, np.ndarray], dict[str, Any]],
    folds: int = 4,
) -> np.ndarray:
    """Probabilities for each item's (old, new) pair: a change from a scorer fitted without its family, a
    compatible pair the highest conflict probability any fold gave it (the strictest reading)."""
    families = sorted({i.family for i in items if i.label in ("update", "contradiction")} - ALWAYS_TRAINED)
    probs = np.zeros((len(items), 4))
    probs[:, 3] = 1.0  # pairs that never reach the scorer
    for k in range(folds):
        held = set(families[k::folds])
        train = [pair for family, pair in tagged if family not in held]
        x, y = featurise(train)
        scorer = PairScorer(fit(x, y))
        rows = [
            i
            for i, item in enumerate(items)
            if (item.family in held or item.label not in ("update", "contradiction"))
            and comparable(item.old, item.new)
        ]
        if rows:
            xt, _ = featurise([(items[i].old, items[i].new, items[i].label) for i in rows])
            p = scorer.probabilities(xt)[: len(rows)]  # the first embedder's rows when there are several
            at = np.asarray(rows)
            compatible = np.array([items[i].label not in ("update", "contradiction") for i in rows])
            take = ~compatible | (p[:, 0] + p[:, 1] > probs[at, 0] + probs[at, 1])
            probs[at[take]] = p[take]
        print(f"fold {k + 1}/{folds}: held out {sorted(held)}", flush=True)
    return probs


def choose(items: list[Any], probs: np.ndarray, mass: float) -> dict[str, Any] | None:
    """The grid thresholds that flag the most out-of-family changes with compatible pairs at most 5 % flagged
    in each language, with the cross-validated rates at that point; None when no grid point meets the bound."""
    change = np.array(
        [i.label in ("update", "contradiction") and i.family not in ALWAYS_TRAINED for i in items]
    )
    compatible = np.array([i.label in ("elaboration", "unrelated") for i in items])
    langs = {lang: np.array([i.lang == lang for i in items]) for lang in ("en", "zh")}
    best: dict[str, Any] | None = None
    for upd in GRID:
        for con in GRID:
            flagged = flags(probs, upd, con, mass)
            comp = {lang: float(flagged[m & compatible].mean()) for lang, m in langs.items()}
            found = {lang: float(flagged[m & change].mean()) for lang, m in langs.items()}
            if max(comp.values()) > MAX_COMPATIBLE:
                continue
            score = float(np.mean(list(found.values())))
            if best is None or score > best["cv_flagged"]:
                best = {"update": upd, "contradiction": con, "cv_flagged": score,
                        "cv_flagged_by_language": found, "cv_compatible_by_language": comp}  # fmt: skip
    return best


def rates_at(
    items: list[Any], probs: np.ndarray, update: float, contradiction: float, mass: float
) -> dict[str, Any]:
    """The cross-validated rates at given thresholds (used when no grid point meets the bound)."""
    change = np.array(
        [i.label in ("update", "contradiction") and i.family not in ALWAYS_TRAINED for i in items]
    )
    compatible = np.array([i.label in ("elaboration", "unrelated") for i in items])
    flagged = flags(probs, update, contradiction, mass)
    langs = {lang: np.array([i.lang == lang for i in items]) for lang in ("en", "zh")}
    found = {lang: float(flagged[m & change].mean()) for lang, m in langs.items()}
    return {"update": update, "contradiction": contradiction, "cv_flagged": float(np.mean(list(found.values()))),
            "cv_flagged_by_language": found,
            "cv_compatible_by_language": {lang: float(flagged[m & compatible].mean()) for lang, m in langs.items()}}  # fmt: skip
