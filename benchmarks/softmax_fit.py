"""The pair scorers' fitting: softmax regression over standardised pair features, and how fitted weights are written.

Shared by `fit_pairs` (the first stage and the reader) and `fit_masked` (the second stage).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from psychoagent.memory.conflicts.detect import LABELS
from psychoagent.memory.conflicts.pairs import FEATURES

__all__ = ["fit", "write_weights"]


def fit(
    x: np.ndarray,
    y: np.ndarray,
    l2: float,
    hidden: int = 0,
    seed: int = 0,
    block_l2: float | None = None,
    sample_weight: np.ndarray | None = None,
) -> dict[str, Any]:
    """Softmax regression on standardised features, balanced class weights, L2, scipy L-BFGS; with `hidden` > 0
    a tanh layer of that many units adds to the logits (the linear part stays). With 16 units and l2 0.1 the
    pair rates on dev and test equalled the linear scorer's (2026-12-01), so the packaged scorers are linear.
    `block_l2`: the L2 of the linear weights on the columns after FEATURES (embedding interactions), else `l2`;
    `sample_weight` scales each pair's share of the loss (pairs written in plain words above generated ones)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    k, d = len(LABELS), z.shape[1]
    counts = np.bincount(y, minlength=k).astype(float)
    weight = (len(y) / (k * np.maximum(counts, 1)))[y]
    if sample_weight is not None:
        weight = weight * sample_weight
    weight /= weight.sum()
    onehot = np.eye(k)[y]
    reg = np.full(d, l2)
    if block_l2 is not None:
        reg[len(FEATURES) :] = block_l2
    sizes = [(k, d), (k,), (hidden, d), (hidden,), (k, hidden)]
    bounds = np.cumsum([0] + [int(np.prod(s)) for s in sizes])

    def unpack(theta: np.ndarray) -> list[np.ndarray]:
        return [theta[a:b].reshape(s) for a, b, s in zip(bounds[:-1], bounds[1:], sizes, strict=True)]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b, w1, b1, w2 = unpack(theta)
        logits = z @ w.T + b
        if hidden:
            h = np.tanh(z @ w1.T + b1)
            logits = logits + h @ w2.T
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        nll = -(weight * np.log(np.clip((p * onehot).sum(axis=1), 1e-12, None))).sum()
        g = (p - onehot) * weight[:, None]
        grads = [g.T @ z + reg * w, g.sum(axis=0)]
        penalty = float((reg * w * w).sum())
        if hidden:
            g_h = (g @ w2) * (1.0 - h * h)
            grads += [g_h.T @ z + l2 * w1, g_h.sum(axis=0), g.T @ h + l2 * w2]
            penalty += l2 * float((w1 * w1).sum() + (w2 * w2).sum())
        else:
            grads += [np.zeros(sizes[2]), np.zeros(sizes[3]), np.zeros(sizes[4])]
        return nll + 0.5 * penalty, np.concatenate([gr.ravel() for gr in grads])

    theta0 = np.zeros(int(bounds[-1]))
    if hidden:  # small random start so the hidden units differ
        theta0[bounds[2] : bounds[3]] = np.random.default_rng(seed).normal(0, 0.1 / np.sqrt(d), hidden * d)
        theta0[bounds[4] :] = np.random.default_rng(seed + 1).normal(0, 0.1, k * hidden)
    res = minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 3000})
    w, b, w1, b1, w2 = unpack(res.x)
    out: dict[str, Any] = {
        "features": list(FEATURES), "labels": list(LABELS), "mean": mean.tolist(), "scale": scale.tolist(),
        "coef": w.round(6).tolist(), "intercept": b.round(6).tolist(),
    }  # fmt: skip
    if hidden:
        out["hidden"] = {
            "coef": w1.round(6).tolist(),
            "intercept": b1.round(6).tolist(),
            "out": w2.round(6).tolist(),
        }
    return out


def write_weights(out: Path, weights: dict[str, Any], meta: dict[str, Any]) -> None:
    """Write fitted weights as JSON with how they were fitted (`meta`: script, settings, data, date, rates)."""
    weights["meta"] = meta
    out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
