"""In-memory inverted index with BM25 for one namespace: the hot path of keyword recall.

SQLite FTS5 keeps the durable token text; scoring an OR-query of frequent terms there took ~100 ms at 100k units
here (FTS5 scores every matching row through the SQL layer), while numpy over postings arrays takes a few ms.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence

import numpy as np

from psychoagent.text import stem

BM25_K1 = 1.2
"""Term-frequency saturation (Robertson & Zaragoza 2009, the usual 1.2)."""
BM25_B = 0.75
"""Length normalisation (Robertson & Zaragoza 2009, the usual 0.75)."""
DENSE_SHARE = 0.25
"""A term found in at least this share of the documents keeps its BM25 weights as a full-length array too: adding
it to the scores is then one contiguous addition instead of a scatter over most rows (at 100k units a query's
frequent words were most of a keyword search)."""
DENSE_TERMS = 8
"""At most this many such full-length arrays are kept (8 bytes per unit each)."""
SHORT_POSTINGS = 4
"""`matches` locates the postings of terms with at most this many times as many documents as rows it is asked
about among those rows in one pass (the entity expansion asks about dozens of rare words at once)."""


class KeywordIndex:
    """Postings (row, term frequency) per term plus document lengths; rows are the namespace index's rows."""

    def __init__(self) -> None:
        # postings grow as C arrays: reading one into numpy is a copy of its buffer, not a conversion of Python ints
        # (at 100k units a query's rare words and the entity expansion converted a dozen lists each)
        self._rows: dict[str, array[int]] = {}
        self._tfs: dict[str, array[int]] = {}
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lengths: list[int] = []
        self._length_array: np.ndarray | None = None
        self._mean_length = 0.0
        self._doc_terms: list[tuple[str, ...]] = []
        self._weights: dict[str, np.ndarray] = {}
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
                    postings[tok] = array("q", (row,))
                    tfs[tok] = array("q", (tf,))
                else:
                    hit.append(row)
                    tfs[tok].append(tf)
                    arrays.pop(tok, None)
        self._length_array = None
        self._weights.clear()  # BM25 weights depend on the collection size and mean length
        self._dense.clear()

    def remove(self, row: int) -> None:
        """Drop the document at a row from every posting (forgetting): its terms stop matching and stop counting
        in BM25's statistics; the row stays, empty."""
        if row >= len(self._doc_terms):
            return
        for term in self._doc_terms[row]:
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
        self._dense.clear()

    def _postings(self, word: str, stemmed: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
        """Postings of a query word, looked up by its stem as documents are indexed (`stemmed`: already one)."""
        term = word if stemmed else stem(word)
        cached = self._arrays.get(term)
        if cached is None:
            rows = self._rows.get(term)
            if rows is None:
                return None
            cached = (np.array(rows, dtype=np.int64), np.array(self._tfs[term], dtype=np.float64))
            self._arrays[term] = cached
        return cached

    def terms(self, row: int) -> tuple[str, ...]:
        """The distinct stems of the document at a row."""
        return self._doc_terms[row] if row < len(self._doc_terms) else ()

    def frequency(self, term: str) -> int:
        """How many documents contain a stem (its document frequency)."""
        return len(self._rows.get(term, ()))

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
        self._weights[term] = weights
        return weights

    def _dense_weights(self, term: str, post: tuple[np.ndarray, np.ndarray], size: int) -> np.ndarray:
        """A frequent term's BM25 weights as a full-length array (0 where absent), kept until the next `add`."""
        dense = self._dense.get(term)
        if dense is None:
            dense = np.zeros(size)
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
        scores: np.ndarray | None = None
        for term in dict.fromkeys(terms):
            stemmed = stem(term)
            post = self._postings(stemmed, stemmed=True)
            if post is None:
                continue
            if len(post[0]) >= DENSE_SHARE * size:
                # same sums as the scatter below: rows without the term add 0.0 (the first one starts the sums)
                weights = self._dense_weights(stemmed, post, size)
                scores = weights.copy() if scores is None else np.add(scores, weights, out=scores)
            else:
                if scores is None:
                    scores = np.zeros(size)
                scores[post[0]] += self._term_weights(stemmed, post)
        if scores is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if mask is not None:
            scores[: len(mask)] *= mask
        hits = np.flatnonzero(scores > 0)  # (nonzero over the floats themselves took 6x as long)
        if len(hits) > n:
            negated = scores[hits]
            np.negative(negated, out=negated)  # the same values as -scores[hits], one array fewer
            hits = hits[np.argpartition(negated, n - 1)[:n]]
        order = np.argsort(-scores[hits], kind="stable")
        return hits[order], scores[hits[order]]
