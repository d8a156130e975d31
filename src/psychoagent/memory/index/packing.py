"""Strings as flat arrays and back, for index snapshots: one UTF-8 buffer plus character offsets (no pickle, so a
snapshot file is data only)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np


def pack_strings(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(UTF-8 bytes as uint8, character offsets with a leading 0) of the strings in order."""
    joined = "".join(texts)
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    if texts:
        np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)), out=offsets[1:])
    return np.frombuffer(joined.encode("utf-8"), dtype=np.uint8), offsets


def unpack_strings(data: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The strings `pack_strings` packed."""
    joined = data.tobytes().decode("utf-8")
    bounds = offsets.tolist()
    return [joined[a:b] for a, b in pairwise(bounds)]


LABEL_KEYS = ("codes", "vocab", "vocab_offsets")
"""The arrays `pack_labels` returns, in `unpack_labels` argument order."""


def pack_labels(values: Sequence[str]) -> dict[str, np.ndarray]:
    """A low-cardinality string column (kind, tier) as codes into its distinct values."""
    vocab = list(dict.fromkeys(values))
    code = {v: i for i, v in enumerate(vocab)}
    data, offsets = pack_strings(vocab)
    codes = np.fromiter((code[v] for v in values), dtype=np.int32, count=len(values))
    return {"codes": codes, "vocab": data, "vocab_offsets": offsets}


def unpack_labels(codes: np.ndarray, vocab: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The column `pack_labels` packed, as an object array (the strings shared, one per distinct value)."""
    names = np.empty(len(offsets) - 1, dtype=object)
    names[:] = unpack_strings(vocab, offsets)
    return names[codes] if len(codes) else np.empty(0, dtype=object)
