"""The hashing embedder: deterministic feature hashing of words, character trigrams and CJK bigrams, no model.

Its CRCs are computed in columns over numpy arrays of a batch's code points, so bulk events embed fast.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

import numpy as np

from psychoagent.embed.vectors import normalise

_WORD = re.compile(r"[\w']+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class _CrcCache(dict[str, int]):
    """CRC32 of a hashed feature (the text after `seed`'s prefix), computed once each (cleared when it grows past
    `limit` entries)."""

    limit = 1_000_000

    def __init__(self, prefix: bytes = b"") -> None:
        super().__init__()
        self.seed = zlib.crc32(prefix)

    def __missing__(self, feature: str) -> int:
        if len(self) >= self.limit:
            self.clear()
        value = self[feature] = zlib.crc32(feature.encode("utf-8"), self.seed)
        return value


_CRC_CACHE = _CrcCache()
PER_TEXT_CHARS = 256
"""A batch of at most this many characters (a query) is embedded text by text: the columnar path's fixed cost of
some forty numpy calls is most of one short text's time (measured 2026-12-01 on the bench's texts, 2 busy cores:
one 70-character text 39 us text by text against 101 us in columns, four texts of 277 characters 25 against 28 us
each, eight of 559 characters 21 against 18 us each; the vectors are the same)."""
_WORD_CRC = _CrcCache(b"w:")
"""CRC32 of "w:" + word by word (words repeat, Zipf): the running CRC continues from the prefix's."""


@lru_cache(maxsize=1)
def _crc_table() -> np.ndarray:
    """The CRC-32 (IEEE, zlib's) byte table, to run CRC32 over many short strings at once in numpy."""
    table = np.arange(256, dtype=np.int64)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ 0xEDB88320, table >> 1)
    return table


@lru_cache(maxsize=1)
def _whitespace() -> np.ndarray:
    """Which code points up to U+3000 (the largest) are whitespace as `re`'s \\s sees them (str.isspace)."""
    return np.array([chr(c).isspace() for c in range(0x3001)], dtype=bool)


@lru_cache(maxsize=1)
def _word_chars() -> np.ndarray:
    """Which code points `_WORD` matches (`re`'s \\w and the apostrophe), found by `re` itself in one pass."""
    every = np.arange(0x110000, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    table = np.zeros(0x110000, dtype=bool)
    for match in _WORD.finditer(every):  # a few hundred runs
        table[match.start() : match.end()] = True
    return table


def _crc_chars(prefix: bytes, chars: Sequence[np.ndarray]) -> np.ndarray:
    """zlib.crc32((prefix + "".join(chars)).encode("utf-8")) of each position of the code point columns `chars`,
    vectorised: each character's UTF-8 bytes (1 to 4) are fed to the table-driven CRC with masks."""
    reg = np.full(len(chars[0]), zlib.crc32(prefix) ^ 0xFFFFFFFF, dtype=np.int64)
    for ch in chars:
        reg = _crc_step(reg, ch)
    return reg ^ 0xFFFFFFFF


def _crc_step(reg: np.ndarray, ch: np.ndarray) -> np.ndarray:
    """CRC registers advanced by one code point each (its 1 to 4 UTF-8 bytes)."""
    table = _crc_table()
    if len(ch) and int(ch.max()) < 0x80:
        return table[(reg ^ ch) & 0xFF] ^ (reg >> 8)
    size = 1 + (ch >= 0x80) + (ch >= 0x800) + (ch >= 0x10000)
    lead = np.select(
        [size == 1, size == 2, size == 3], [ch, 0xC0 | (ch >> 6), 0xE0 | (ch >> 12)], 0xF0 | (ch >> 18)
    )
    reg = table[(reg ^ lead) & 0xFF] ^ (reg >> 8)
    for k in (1, 2, 3):
        more = size > k
        byte = 0x80 | ((ch >> np.maximum(6 * (size - 1 - k), 0)) & 0x3F)
        reg = np.where(more, table[(reg ^ byte) & 0xFF] ^ (reg >> 8), reg)
    return reg


_LONG_WORD = 24
"""Words longer than this get their CRC from `_WORD_CRC` one by one (a vectorised step per character position
would cost a pass per character of the longest word)."""


def _word_features(chars: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """CRC32 of "w:" + each word, the words given by their first code point's position in `chars` and their
    length: one vectorised CRC step per character position over the words that long (longest first)."""
    out = np.empty(len(starts), dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")
    ordered = lengths[order]
    long = int(np.count_nonzero(ordered > _LONG_WORD))
    for i in order[:long]:
        word = chars[starts[i] : starts[i] + lengths[i]].astype("<u4").tobytes().decode("utf-32-le")
        out[i] = _WORD_CRC[word]
    short, first = order[long:], starts[order[long:]]
    reg = np.full(len(short), _WORD_CRC.seed ^ 0xFFFFFFFF, dtype=np.int64)
    # ordered[long:] falls: the words longer than k are a prefix of it
    active = np.searchsorted(-ordered[long:], -np.arange(_LONG_WORD), side="left")
    for k in range(int(ordered[long]) if len(short) else 0):
        m = int(active[k])
        reg[:m] = _crc_step(reg[:m], chars[first[:m] + k])
    out[short] = reg ^ 0xFFFFFFFF
    return out


def _char_features(lowered: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """(row, CRC32) of every word ("w:"), character-trigram ("c:") and CJK-bigram ("b:") feature of lower-cased
    texts, computed over the whole batch's code points at once; None when a text holds a lone surrogate (the
    per-text path reproduces its encoding error)."""
    n = len(lowered)
    lengths = np.fromiter(map(len, lowered), dtype=np.int64, count=n)
    cp = np.frombuffer("".join(lowered).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(
        np.int64
    )
    if cp.size and bool(((cp >= 0xD800) & (cp <= 0xDFFF)).any()):
        return None
    text_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
    # re.sub(r"\s+", " ", text): the first character of each whitespace run becomes a space, the rest go.
    space = np.zeros(cp.size, dtype=bool)
    small = cp <= 0x3000
    space[small] = _whitespace()[cp[small]]
    run = np.zeros(cp.size, dtype=bool)
    run[1:] = space[1:] & space[:-1] & (text_of[1:] == text_of[:-1])
    keep = ~run
    chars = np.where(space, 32, cp)[keep]
    rows = text_of[keep]
    size = np.bincount(rows, minlength=n)
    pos = np.arange(chars.size, dtype=np.int64) - (np.cumsum(size) - size)[rows]
    tri = np.flatnonzero(pos <= size[rows] - 3)
    tri_crc = _crc_chars(b"c:", (chars[tri], chars[tri + 1], chars[tri + 2]))
    cjk = np.flatnonzero(((chars >= 0x3400) & (chars <= 0x9FFF)) | ((chars >= 0xF900) & (chars <= 0xFAFF)))
    first, second = cjk[:-1], cjk[1:]
    pair = rows[first] == rows[second]
    first, second = first[pair], second[pair]
    bi_crc = _crc_chars(b"b:", (chars[first], chars[second])) if first.size else np.zeros(0, dtype=np.int64)
    word = _word_chars()[chars]
    start = word.copy()
    start[1:] &= ~(word[:-1] & (rows[1:] == rows[:-1]))
    starts = np.flatnonzero(start)
    sizes = np.bincount(np.cumsum(start)[word] - 1, minlength=len(starts))
    word_crc = _word_features(chars, starts, sizes)
    return (
        np.concatenate([rows[starts], rows[tri], rows[first]]),
        np.concatenate([word_crc, tri_crc, bi_crc]),
    )


class HashingEmbedder:
    """Deterministic feature-hashing embedder over words and character trigrams (no model, no randomness).

    Similar strings get similar vectors; it knows no synonyms. Good for tests and for very many short events.
    """

    similarity_floor = 0.0
    """Hashed features of unrelated texts are near-orthogonal."""
    dense_weight = 0.5
    """Hashing knows no synonyms, so the keyword part deserves an equal share (recall@5 on the fixture)."""
    cheaper_than_lookup = True
    """Embedding a text costs less than looking its vector up in the store (the vectors are deterministic)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _features(self, text: str) -> list[str]:
        """The hashed features of one text: words ("w:"), character trigrams of the text with whitespace runs
        collapsed ("c:") and bigrams of its CJK characters ("b:")."""
        lowered = text.lower()
        words = _WORD.findall(lowered)
        feats = [f"w:{w}" for w in words]
        compact = re.sub(r"\s+", " ", lowered)
        feats += [f"c:{compact[i : i + 3]}" for i in range(max(0, len(compact) - 2))]
        # CJK text has no spaces: character bigrams carry most of its meaning.
        cjk = "".join(_CJK.findall(lowered))
        feats += [f"b:{cjk[i : i + 2]}" for i in range(max(0, len(cjk) - 1))]
        return feats

    def _bucket(self, n: int, rows: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """Signed feature counts per row (bit 16 of a feature's CRC is its sign), row-normalised. The counts are
        small integers, exact in float32 whatever the order they are added in."""
        signs = np.where((hashes >> 16) & 1, np.float32(1.0), np.float32(-1.0))
        counts = np.zeros(n * self.dim, dtype=np.float32)
        np.add.at(counts, rows * self.dim + hashes % self.dim, signs)
        return normalise(counts.reshape(n, self.dim))

    def _embed_per_text(self, texts: Sequence[str]) -> np.ndarray:
        """The features of each text as strings (the definition `_embed` computes in columns)."""
        crc = _CRC_CACHE.__getitem__
        feats = [self._features(text) for text in texts]
        lengths = np.fromiter(map(len, feats), dtype=np.int64, count=len(feats))
        hashes = np.fromiter(map(crc, chain.from_iterable(feats)), dtype=np.int64, count=int(lengths.sum()))
        return self._bucket(len(texts), np.repeat(np.arange(len(texts), dtype=np.int64), lengths), hashes)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """The same vectors as `_embed_per_text`, columnar over the batch: every feature's CRC computed over numpy
        arrays of the batch's code points. Sums of +-1 are exact, so the order of features is free."""
        n = len(texts)
        lowered = [text.lower() for text in texts]
        if sum(map(len, lowered)) <= PER_TEXT_CHARS:
            return self._embed_per_text(texts)
        features = _char_features(lowered)
        if features is None:
            return self._embed_per_text(texts)
        return self._bucket(n, *features)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)
