"""Vector helpers shared by the embedders and the indexes."""

from __future__ import annotations

import numpy as np


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Row-normalise to unit length; rejects NaN/inf so that a bad vector never reaches the index."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    if not np.isfinite(arr).all():
        raise ValueError("embedding contains NaN or inf values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return arr / norms


def normalised_similarity(cosine: np.ndarray | float, floor: float | None) -> np.ndarray:
    """Cosine mapped so an embedder's unrelated-text level is 0 and identity is 1 (clipped to [0, 1])."""
    base = 0.0 if floor is None else float(floor)
    return np.clip((np.asarray(cosine, dtype=np.float64) - base) / max(1.0 - base, 1e-9), 0.0, 1.0)
