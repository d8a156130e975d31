"""In-memory inverted index with BM25 for one namespace: the hot path of keyword recall.

SQLite FTS5 keeps the durable token text; scoring an OR-query of frequent terms there took ~100 ms at 100k units
here (FTS5 scores every matching row through the SQL layer), while numpy over postings arrays takes a few ms.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Generic, TypeVar

import numpy as np

from psychoagent.memory.index.packing import pack_strings, unpack_strings
from psychoagent.text import stem

BM25_K1 = 1.2
"""Term-frequency saturation (Robertson & Zaragoza 2009, the usual 1.2)."""
BM25_B = 0.75
"""Length normalisation (Robertson & Zaragoza 2009, the usual 0.75)."""
DENSE_SHARE = 0.1
"""A term found in at least this share of the documents keeps its BM25 weights as a full-length array too: adding
it to the scores is then one contiguous addition instead of a scatter over most rows (at 100k units a query's
frequent words were most of a keyword search; at a million units lowering the share from 0.25 to 0.1 took the
recall p95 from 15.6-16.0 to 14.5-14.7 ms on the bench queries)."""
DENSE_TERMS = 12
"""At most this many such full-length arrays are kept, the least recently used dropped first (8 bytes per unit
each: 96 MB at a million units)."""
_V = TypeVar("_V")
POSTING_TYPE = "i"
"""Postings rows and term frequencies are C ints (32 bits): 8 bytes an entry where int64 took 16."""
RARE_SHARE = 0.02
"""`search` first scores only the documents of a query's rarer terms when those make at most this share of the
documents (at a million units the shortcut over a larger share cost more than scoring every document)."""
SAMPLE_MIN_RATIO = 256
"""`search` picks the top n of an array at least this many times n long by a sampled threshold (`_top_by_sample`)."""
SAMPLE_PER_ROW = 32
"""...reading about this many sample values per row asked for..."""
SAMPLE_MARGIN = 3
"""...and keeping every score above the sample's value expected to pass this many times n rows."""
CACHE_BYTES = 48 * 2**20
"""Bytes of postings copied to numpy and of BM25 weights each kept (least recently used out first): unbounded,
they grew by 0.4 GB over 300 queries at a million units."""
SHORT_POSTINGS = 4
"""`matches` locates the postings of terms with at most this many times as many documents as rows it is asked
about among those rows in one pass (the entity expansion asks about dozens of rare words at once)."""


class KeywordIndex:
    """Postings (row, term frequency) per term plus document lengths; rows are the namespace index's rows."""

    def __init__(self) -> None:
        # postings grow as C arrays: reading one into numpy is a copy of its buffer, not a conversion of Python ints
        # (at 100k units a query's rare words and the entity expansion converted a dozen lists each)
        self._rows: dict[str, array[int]] = {}  # int32: half the memory of int64 at a million rows
        self._tfs: dict[str, array[int]] = {}
        self._base: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int32), np.zeros(0, np.int32))
        """(rows, tfs) of every posting a snapshot gave, term after term (`from_arrays`); postings added since
        go to `_rows` and `_tfs`, and a term's postings are its base slice followed by those."""
        self._base_at: dict[str, tuple[int, int]] = {}
        """Each snapshot term's slice of `_base`."""
        self._arrays: _Cache[tuple[np.ndarray, np.ndarray]] = _Cache(CACHE_BYTES)
        self._lengths: list[int] = []
        self._length_array: np.ndarray | None = None
        self._mean_length = 0.0
        self._doc_terms: list[tuple[str, ...] | None] = []
        """Distinct stems per row; None for rows loaded from a snapshot, whose stems stay in `_loaded_terms`."""
        self._loaded_terms: tuple[list[str], np.ndarray, np.ndarray] | None = None
        """(vocabulary, row offsets, term ids) of the rows a snapshot gave (`from_arrays`)."""
        self._weights: _Cache[np.ndarray] = _Cache(CACHE_BYTES)
        self._bounds: dict[str, float] = {}  # a term's best weight, kept with its weights
        self._dense: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, rows: Sequence[int], token_lists: Sequence[Sequence[str]]) -> None:
        """Index documents at the given rows (rows must be appended in increasing order); words are stemmed."""
        postings, tfs, arrays = self._rows, self._tfs, self._arrays
        for row, toks in zip(rows, token_lists, strict=True):
            if len(self._lengths) <= row:
                missing = row + 1 - len(self._lengths)
                self._lengths.extend([0] * missing)
                self._doc_terms.extend([()] * missing)
            self._lengths[row] = len(toks)
            counts = Counter(map(stem, toks))  # insertion-ordered like a dict, counted in C
            self._doc_terms[row] = tuple(counts)
            for tok, tf in counts.items():
                hit = postings.get(tok)
                if hit is None:
                    postings[tok] = array(POSTING_TYPE, (row,))
                    tfs[tok] = array(POSTING_TYPE, (tf,))
                else:
                    hit.append(row)
                    tfs[tok].append(tf)
                    arrays.pop(tok, None)
        self._length_array = None
        self._weights.clear()  # BM25 weights depend on the collection size and mean length
        self._bounds.clear()
        self._dense.clear()

    def remove(self, row: int) -> None:
        """Drop the document at a row from every posting (forgetting): its terms stop matching and stop counting
        in BM25's statistics; the row stays, empty."""
        if row >= len(self._doc_terms):
            return
        for term in self.terms(row):
            self._unfreeze(term)
            rows, tfs = self._rows[term], self._tfs[term]
            at = rows.index(row)
            del rows[at]
            del tfs[at]
            if not rows:
                del self._rows[term], self._tfs[term]
            self._arrays.pop(term, None)
        self._lengths[row] = 0
        self._doc_terms[row] = ()
        self._length_array = None
        self._weights.clear()
        self._bounds.clear()
        self._dense.clear()

    def _postings(self, word: str, stemmed: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
        """Postings of a query word, looked up by its stem as documents are indexed (`stemmed`: already one)."""
        term = word if stemmed else stem(word)
        at = self._base_at.get(term)
        tail = self._rows.get(term)
        if at is not None and tail is None:  # a snapshot's postings: views, no copy
            return self._base[0][at[0] : at[1]], self._base[1][at[0] : at[1]]
        cached = self._arrays.get(term)
        if cached is None:
            if tail is None:
                return None
            rows = np.frombuffer(tail, dtype=np.int32)
            tfs = np.frombuffer(self._tfs[term], dtype=np.int32)
            if at is not None:
                rows = np.concatenate([self._base[0][at[0] : at[1]], rows])
                tfs = np.concatenate([self._base[1][at[0] : at[1]], tfs])
            cached = (rows.copy(), tfs.copy())  # own buffers: the arrays may grow, and move, on the next add
            self._arrays.put(term, cached, cached[0].nbytes + cached[1].nbytes)
        return cached

    def _unfreeze(self, term: str) -> None:
        """Move a snapshot term's postings into its growable arrays (before one is deleted)."""
        at = self._base_at.pop(term, None)
        if at is not None:
            rows = array(POSTING_TYPE, self._base[0][at[0] : at[1]].tobytes())
            tfs = array(POSTING_TYPE, self._base[1][at[0] : at[1]].tobytes())
            self._rows[term] = rows + self._rows.get(term, array(POSTING_TYPE))
            self._tfs[term] = tfs + self._tfs.get(term, array(POSTING_TYPE))

    def _known(self, term: str) -> bool:
        return term in self._rows or term in self._base_at

    def terms(self, row: int) -> tuple[str, ...]:
        """The distinct stems of the document at a row."""
        if row >= len(self._doc_terms):
            return ()
        found = self._doc_terms[row]
        if found is None and self._loaded_terms is not None:
            vocab, offsets, ids = self._loaded_terms
            return tuple(vocab[i] for i in ids[offsets[row] : offsets[row + 1]].tolist())
        return found or ()

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Postings, document lengths and each row's stems as flat arrays (an index snapshot; `from_arrays`)."""
        vocab = list(dict.fromkeys([*self._base_at, *self._rows]))
        term_id = {t: i for i, t in enumerate(vocab)}
        posts = [self._postings(t, stemmed=True) for t in vocab]
        ids = [term_id[t] for row in range(len(self._doc_terms)) for t in self.terms(row)]
        per_row = np.fromiter((len(self.terms(r)) for r in range(len(self._doc_terms))), np.int64)
        data, offsets = pack_strings(vocab)

        def flat(part: int) -> np.ndarray:
            pieces = [p[part].astype(np.int32, copy=False) for p in posts if p is not None]
            return np.concatenate(pieces) if pieces else np.zeros(0, np.int32)

        return {
            "vocab": data, "vocab_offsets": offsets, "rows": flat(0), "tfs": flat(1),
            "counts": np.fromiter((self.frequency(t) for t in vocab), np.int64, count=len(vocab)),
            "lengths": np.asarray(self._lengths, dtype=np.int64), "doc_offsets": _offsets(per_row),
            "doc_terms": np.asarray(ids, dtype=np.int32),
        }  # fmt: skip

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> KeywordIndex:
        """The index `to_arrays` flattened."""
        index = cls()
        vocab = unpack_strings(arrays["vocab"], arrays["vocab_offsets"])
        ends = np.cumsum(arrays["counts"]).tolist()
        index._base = (
            arrays["rows"].astype(np.int32, copy=False),
            arrays["tfs"].astype(np.int32, copy=False),
        )
        index._base_at = dict(zip(vocab, zip([0, *ends[:-1]], ends, strict=True), strict=True))
        index._lengths = arrays["lengths"].tolist()
        index._doc_terms = [None] * len(index._lengths)
        index._loaded_terms = (vocab, arrays["doc_offsets"], arrays["doc_terms"])
        return index

    def frequency(self, term: str) -> int:
        """How many documents contain a stem (its document frequency)."""
        at = self._base_at.get(term)
        return (0 if at is None else at[1] - at[0]) + len(self._rows.get(term, ()))

    def matches(self, terms: Sequence[str], rows: np.ndarray, stemmed: bool = False) -> np.ndarray:
        """Boolean matrix (len(rows) x len(terms)): does the document at each row contain each term (words, or
        stems as `terms` returns them when `stemmed`)?"""
        out = np.zeros((len(rows), len(terms)), dtype=bool)
        ordered = len(rows) > 1 and bool(np.all(rows[1:] > rows[:-1]))
        short: list[tuple[int, np.ndarray]] = []
        for j, term in enumerate(terms):
            post = self._postings(term, stemmed)
            if post is None:
                continue
            if ordered and len(post[0]) <= SHORT_POSTINGS * len(rows):
                short.append((j, post[0]))
                continue
            # postings rows are appended in increasing order, so a binary search finds membership
            where = np.minimum(np.searchsorted(post[0], rows), len(post[0]) - 1)
            out[:, j] = post[0][where] == rows
        if short:
            # rare terms of increasing rows: all their postings located among the rows at once
            found = np.concatenate([post for _, post in short])
            column = np.repeat([j for j, _ in short], [len(post) for _, post in short])
            at = np.minimum(np.searchsorted(rows, found), len(rows) - 1)
            hit = rows[at] == found
            out[at[hit], column[hit]] = True
        return out

    def _term_weights(self, term: str, post: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """BM25 weight of a term in each document of its postings, kept until the next `add` (a frequent term's
        postings cover most rows, and recomputing them was most of a keyword search at 100k units)."""
        cached = self._weights.get(term)
        if cached is not None:
            return cached
        if self._length_array is None:
            self._length_array = np.asarray(self._lengths, dtype=np.float64)
            self._mean_length = max(float(self._length_array.mean()), 1e-9)  # once per add, not once per term
        lengths, size, avg = self._length_array, len(self._lengths), self._mean_length
        rows, tf = post
        idf = np.log1p((size - len(rows) + 0.5) / (len(rows) + 0.5))
        norm = tf + BM25_K1 * (1.0 - BM25_B + BM25_B * lengths[rows] / avg)
        weights = idf * tf * (BM25_K1 + 1.0) / norm
        self._weights.put(term, weights, weights.nbytes)
        return weights

    def _rare_first(
        self, terms: Sequence[str], mask: np.ndarray | None, n: int, size: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The top n by the documents of the query's rarer terms alone, when that is provably the top n of all
        (the upper-bound test of MaxScore, Turtle & Flood 1995): the frequent terms' scores are added to those
        documents only, and a document without a rarer term scores at most the sum of the frequent terms' best
        weights. None when the test fails (or no term is frequent): the caller scores every document."""
        df = {t: self.frequency(t) for t in dict.fromkeys(stem(t) for t in terms) if self._known(t)}
        frequent = [t for t, f in df.items() if f >= DENSE_SHARE * size]
        rare = [t for t, f in df.items() if f < DENSE_SHARE * size]
        if not frequent or not rare or sum(df[t] for t in rare) > RARE_SHARE * size:
            return None
        posts = [self._postings(t, stemmed=True) for t in rare]
        rows, where = np.unique(np.concatenate([p[0] for p in posts if p is not None]), return_inverse=True)
        weights = np.concatenate(
            [self._term_weights(t, p) for t, p in zip(rare, posts, strict=True) if p is not None]
        )
        scores = np.bincount(where, weights=weights, minlength=len(rows))
        ceiling = 0.0  # the most a document with frequent terms only can score
        for term in frequent:
            dense = self._dense_weights(term, size)
            scores += dense[rows]
            bound = self._bounds.get(term)
            ceiling += bound if bound is not None else self._bounds.setdefault(term, float(dense.max()))
        if mask is not None:
            scores *= mask[rows]
        keep = scores > 0
        rows, scores = rows[keep], scores[keep]
        if len(rows) < n:
            return None
        top = np.argpartition(-scores, n - 1)[:n]
        if scores[top].min() <= ceiling:
            return None
        order = top[np.argsort(-scores[top], kind="stable")]
        return rows[order].astype(np.int64), scores[order]

    def _dense_weights(self, term: str, size: int) -> np.ndarray:
        """A frequent term's BM25 weights as a full-length array (0 where absent), kept until the next `add`
        (the `DENSE_TERMS` most recently used)."""
        dense = self._dense.pop(term, None)
        if dense is None:
            post = self._postings(term, stemmed=True)
            dense = np.zeros(size)
            if post is not None:
                dense[post[0]] = self._term_weights(term, post)
            if len(self._dense) >= DENSE_TERMS:
                self._dense.pop(next(iter(self._dense)))
        self._dense[term] = dense
        return dense

    def search(self, terms: Sequence[str], mask: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, BM25 scores) of the top-n documents matching any term, best first, within the mask."""
        size = len(self._lengths)
        if size == 0 or not terms or n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        found = self._rare_first(terms, mask, n, size)
        if found is not None:
            return found
        scores: np.ndarray | None = None
        for term in dict.fromkeys(terms):
            stemmed = stem(term)
            df = self.frequency(stemmed)
            if df == 0:
                continue
            if df >= DENSE_SHARE * size:
                # same sums as the scatter below: rows without the term add 0.0 (the first one starts the sums)
                weights = self._dense_weights(stemmed, size)
                scores = weights.copy() if scores is None else np.add(scores, weights, out=scores)
            else:
                post = self._postings(stemmed, stemmed=True)
                assert post is not None
                if scores is None:
                    scores = np.zeros(size)
                scores[post[0]] += self._term_weights(stemmed, post)
        if scores is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if mask is not None:
            scores[: len(mask)] *= mask
        best = _top_by_sample(scores, n)
        if best is not None:
            order = np.argsort(-scores[best], kind="stable")
            return best[order], scores[best[order]]
        hits = np.flatnonzero(scores > 0)  # (nonzero over the floats themselves took 6x as long)
        if len(hits) > n:
            negated = scores[hits]
            np.negative(negated, out=negated)  # the same values as -scores[hits], one array fewer
            hits = hits[np.argpartition(negated, n - 1)[:n]]
        order = np.argsort(-scores[hits], kind="stable")
        return hits[order], scores[hits[order]]


def _offsets(counts: np.ndarray) -> np.ndarray:
    """Offsets (a leading 0, then running sums) of consecutive runs of these lengths."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _top_by_sample(scores: np.ndarray, n: int) -> np.ndarray | None:
    """Rows of the n best positive scores of a long array (ties with the n-th included), by a threshold read off an
    evenly spaced sample: every row at or above it is kept, and when at least n are, the n best of all rows are
    among them. One comparison pass, where finding the scoring rows and partitioning them took three (at a
    million units 2.5 ms of a keyword search). None when the array is short or the sample's threshold keeps
    fewer than n rows: the caller partitions every scoring row."""
    size = len(scores)
    if size < SAMPLE_MIN_RATIO * n:
        return None
    sample = scores[:: size // (SAMPLE_PER_ROW * n)]
    keep = min(len(sample), math.ceil(len(sample) * SAMPLE_MARGIN * n / size))
    threshold = float(np.partition(sample, len(sample) - keep)[len(sample) - keep])
    if threshold <= 0:
        return None
    above = np.flatnonzero(scores >= threshold)
    if len(above) < n:
        return None
    return above[np.argpartition(-scores[above], n - 1)[:n]] if len(above) > n else above


class _Cache(Generic[_V]):
    """A dict of arrays by term, least recently used out first once they pass a number of bytes."""

    def __init__(self, budget: int) -> None:
        self._items: OrderedDict[str, tuple[_V, int]] = OrderedDict()
        self._budget, self._bytes = budget, 0

    def get(self, key: str) -> _V | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: str, value: _V, nbytes: int) -> None:
        self.pop(key)
        self._items[key] = (value, nbytes)
        self._bytes += nbytes
        while self._bytes > self._budget and len(self._items) > 1:
            self._bytes -= self._items.popitem(last=False)[1][1]

    def pop(self, key: str, default: None = None) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self._bytes -= item[1]

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0
