"""Vectors for the pair scorer's fitting: sentence vectors with a disk cache, and the span features' word table."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import numpy as np

from psychoagent.embed import get_embedder
from psychoagent.memory.conflicts.spans import WordVectors, pair_words

CACHE = Path.home() / ".cache" / "psychoagent-bench"


def embed_all(texts: list[str], name: str, shared: Path | None = None) -> dict[str, np.ndarray]:
    """Unit vectors for texts with a disk cache keyed by text hash (e5 costs ~10 ms a sentence here); `shared`
    is a `bench_conflicts --cache` file whose document vectors are reused."""
    embedder = get_embedder(name)
    path = CACHE / f"{embedder.name}.npz"
    cache: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path) as data:
            cache = {k: data[k] for k in data.files}
    key = {t: hashlib.sha1(t.encode()).hexdigest() for t in texts}
    if shared is not None and shared.exists():
        with shared.open("rb") as fh:
            saved = pickle.load(fh)  # a local file bench_conflicts wrote
        if saved.get("embedder") == embedder.name:
            for text in texts:
                if key[text] not in cache and text in saved["docs"]:
                    cache[key[text]] = np.asarray(saved["docs"][text], dtype=np.float32)
    todo = sorted({t for t in texts if key[t] not in cache})
    for pos in range(0, len(todo), 64):
        chunk = todo[pos : pos + 64]
        for text, vec in zip(chunk, embedder.embed_documents(chunk), strict=True):
            cache[key[text]] = np.asarray(vec, dtype=np.float32)
    if todo:
        CACHE.mkdir(parents=True, exist_ok=True)
        np.savez(path, **cache)
    return {t: cache[key[t]] for t in texts}


def word_table(pairs: list[tuple[str, str, str]], shared: Path | None) -> WordVectors:
    """The e5 vectors of every content word the span features of these pairs read (disk-cached), centred on
    the mean vector of the dev pairs' words (`WordVectors.center`, stored with the scorer)."""
    table = WordVectors(lambda texts: get_embedder("e5").embed_documents(texts))
    table.vectors.update(embed_all(sorted({w for p in pairs for w in pair_words(p[0], p[1])}), "e5", shared))
    return table


def centred(table: WordVectors, pairs: list[tuple[str, str, str]]) -> WordVectors:
    """`table` with its center set to the mean vector of these (dev) pairs' distinct words."""
    vocab = sorted({w for p in pairs for w in pair_words(p[0], p[1])})
    table.center = np.mean(np.stack([table.vectors[w] for w in vocab]), axis=0)
    return table
