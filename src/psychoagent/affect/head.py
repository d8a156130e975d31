"""Fitted linear heads that turn features into continuous valence (-2..2) and arousal (1..3) scores.

Two heads ship in ``psychoagent/data/affect_head.npz`` (fitted by ``benchmarks/fit_affect.py`` on EmoBank's train
split; Buechel & Hahn, EACL 2017, CC BY-SA 4.0): ``lexical`` needs only the text (lexicon features and fitted word
weights) and ``combined`` adds a multilingual-e5-small passage vector. The combined head is used only with a
vector from the model it was fitted on, so a memory with another embedder never pays for an e5 embedding here.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from psychoagent.affect.features import FEATURE_NAMES

HEAD_FILE = "affect_head.npz"
META_FILE = "affect_head.json"
VALENCE_RANGE = (-2.0, 2.0)
AROUSAL_RANGE = (1.0, 3.0)


@dataclass(frozen=True)
class LinearHead:
    """scores = intercept + dense @ features + mean word weight + vector @ embedding (rows: valence, arousal)."""

    name: str
    intercept: np.ndarray  # (2,)
    dense: np.ndarray  # (2, len(FEATURE_NAMES))
    words: dict[str, int]
    word_weights: np.ndarray  # (n_words, 2)
    vector: np.ndarray | None = None  # (2, dim) for a head on embeddings

    def predict(
        self, features: np.ndarray, tokens: list[str], vector: np.ndarray | None = None
    ) -> np.ndarray:
        """(valence, arousal) on the seed's scales, clipped to their ranges."""
        out = self.intercept + self.dense @ features
        rows = [self.words[t] for t in set(tokens) if t in self.words]
        if rows:
            out = out + self.word_weights[rows].sum(axis=0) / np.sqrt(max(len(tokens), 1))
        if self.vector is not None:
            if vector is None:
                raise ValueError(f"head {self.name!r} needs an embedding vector")
            out = out + self.vector @ np.asarray(vector, dtype=np.float64)
        return np.array([np.clip(out[0], *VALENCE_RANGE), np.clip(out[1], *AROUSAL_RANGE)], dtype=np.float64)


@dataclass(frozen=True)
class AffectHeads:
    """The shipped heads and what they were fitted on (embedder name and dimension of the combined head)."""

    lexical: LinearHead
    combined: LinearHead
    embedder: str
    dim: int
    meta: dict[str, Any]

    def accepts(self, embedder: object, vector: Any) -> bool:
        """True when `vector` comes from the model the combined head was fitted on."""
        return embedder == self.embedder and vector is not None and np.shape(vector) == (self.dim,)


def _head(name: str, data: Any, words: dict[str, int]) -> LinearHead:
    vector = data[f"{name}_vector"] if f"{name}_vector" in data.files else None
    return LinearHead(
        name=name,
        intercept=np.asarray(data[f"{name}_intercept"], dtype=np.float64),
        dense=np.asarray(data[f"{name}_dense"], dtype=np.float64),
        words=words,
        word_weights=np.asarray(data[f"{name}_words"], dtype=np.float64),
        vector=None if vector is None else np.asarray(vector, dtype=np.float64),
    )


def load_heads(npz: Any = None, meta: Any = None) -> AffectHeads:
    """Read the heads from package data (or the given paths) and check they match this code's features."""
    base = resources.files("psychoagent") / "data"
    npz_path, meta_path = npz or base / HEAD_FILE, meta or base / META_FILE
    try:
        info = json.loads(meta_path.read_text(encoding="utf-8"))
        raw = npz_path.read_bytes()
    except FileNotFoundError as exc:
        raise FileNotFoundError(
            f"affect head data missing ({exc.filename}); reinstall psychoagent or run benchmarks/fit_affect.py"
        ) from exc
    if tuple(info["features"]) != FEATURE_NAMES:
        raise ValueError(
            f"{META_FILE}: features {info['features']} do not match this code's {list(FEATURE_NAMES)}; "
            "refit with benchmarks/fit_affect.py"
        )
    with np.load(io.BytesIO(raw), allow_pickle=False) as data:
        words = {str(w): i for i, w in enumerate(data["vocabulary"])}
        return AffectHeads(
            lexical=_head("lexical", data, words),
            combined=_head("combined", data, words),
            embedder=str(info["embedder"]),
            dim=int(info["dim"]),
            meta=info,
        )


@lru_cache(maxsize=1)
def default_heads() -> AffectHeads:
    """The heads shipped in the package (loaded once per process)."""
    return load_heads()
