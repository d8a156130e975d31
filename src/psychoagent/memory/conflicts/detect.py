"""Update and contradiction detection by meaning: candidate earlier facts, a learned pair scorer, a decision.

On every write the new unit is compared with a few earlier units of its namespace: the nearest by embedding, the
latest ones sharing a subject (person, place, organisation, the speaker) and those giving the same rule-based
slot. Each pair gets the features of `pairs`; a multinomial logistic scorer whose weights ship in
`psychoagent/data/pair_scorer.json` (fitted by `benchmarks/fit_pairs.py` on generated dev scenarios) gives the
probabilities of update / contradiction / elaboration / unrelated. The best update above its threshold supersedes
the older unit; a contradiction is recorded with both sides current. A scorer fitted with `fit_pairs --spans`
(given as `ConflictConfig.scorer_path`) also reads the embedded differing words of each pair (`spans`) at
write time; recall reads its span block at the training mean. One fitted with `--swaps` reads the e5 vector of the
value-swapped older sentence (`values.swapped`, write time only; recall reads that block at its mean). With
e5, the pairs sharing a subject that the scorer is unsure about go to a second stage (`second_stage`,
masked-predicate similarity; write time only). With e5, the pairs the scorer finds related are read again as one
passage by the reader (`reader`, on by default; at write time and in the briefing, `answers`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.embed import normalised_similarity
from psychoagent.memory.config import ConflictConfig
from psychoagent.memory.conflicts.gate import Gate, blocked_by_rules, phrase_embed
from psychoagent.memory.conflicts.pairs import (
    FEATURES,
    VECTOR_FEATURES,
    analyse,
    comparable,
    pair_features,
    resolve_ellipsis,
    vector_features,
)
from psychoagent.memory.conflicts.reader import JOINT_FEATURES, reread
from psychoagent.memory.conflicts.second_stage import SecondStage, decide
from psychoagent.memory.conflicts.spans import (
    SPAN_FEATURES,
    SWAP_FEATURES,
    Embed,
    TextVectors,
    WordVectors,
    cache_for,
    pair_words,
    span_features,
    swap_features,
)
from psychoagent.memory.conflicts.values import opens_with_name, swapped
from psychoagent.memory.contracts import PairJudge

log = logging.getLogger(__name__)

LABELS = ("update", "contradiction", "elaboration", "unrelated")
"""Relations the scorer tells apart, in the column order of its probabilities."""


class PairScorer:
    """Multinomial logistic regression over standardised pair features, optionally plus a small tanh hidden
    layer whose output adds to the logits (weights loaded from JSON; numpy inference)."""

    def __init__(self, weights: dict[str, Any]) -> None:
        names = tuple(weights["features"])
        if names != FEATURES:
            raise ValueError(
                f"scorer weights were fitted for other features: {sorted(set(names) ^ set(FEATURES))}"
            )
        if tuple(weights["labels"]) != LABELS:
            raise ValueError(f"scorer labels must be {LABELS}, got {weights['labels']}")
        self.mean = np.asarray(weights["mean"], dtype=np.float64)  # FEATURES, then the vector block if any
        self.scale = np.asarray(weights["scale"], dtype=np.float64)
        self.coef = np.asarray(weights["coef"], dtype=np.float64)  # labels x features
        self.intercept = np.asarray(weights["intercept"], dtype=np.float64)
        hidden = weights.get("hidden") or {}
        self.hidden_in = np.asarray(hidden.get("coef", np.zeros((0, len(self.mean)))), dtype=np.float64)
        self.hidden_bias = np.asarray(hidden.get("intercept", np.zeros(0)), dtype=np.float64)
        self.hidden_out = np.asarray(hidden.get("out", np.zeros((len(LABELS), 0))), dtype=np.float64)
        vector = weights.get("vector") or {}
        self.embedder: str | None = vector.get("embedder")
        self.vector_dim = int(vector.get("dim", 0))
        if vector and tuple(vector.get("features", ())) != VECTOR_FEATURES:
            raise ValueError(
                f"scorer vector features must be {VECTOR_FEATURES}, got {vector.get('features')}"
            )
        spans = weights.get("spans") or {}
        if spans and tuple(spans.get("features", ())) != SPAN_FEATURES:
            raise ValueError(f"scorer span features must be {SPAN_FEATURES}, got {spans.get('features')}")
        self.reads_spans = bool(spans)
        """True for a write-time scorer that also reads the embedded differing words (`spans`)."""
        self.span_center = np.asarray(spans["center"], dtype=np.float64) if spans.get("center") else None
        """The mean word vector its span features were fitted with, taken out of every word's vector."""
        swaps = weights.get("swaps") or {}
        if swaps and tuple(swaps.get("features", ())) != SWAP_FEATURES:
            raise ValueError(f"scorer swap features must be {SWAP_FEATURES}, got {swaps.get('features')}")
        self.reads_swaps = bool(swaps)
        """True for a write-time scorer that also reads the value-swapped older sentence (`values.swapped`)."""
        joint = weights.get("joint") or {}
        if joint and tuple(joint.get("features", ())) != JOINT_FEATURES:
            raise ValueError(f"scorer joint features must be {JOINT_FEATURES}, got {joint.get('features')}")
        self.reads_joint = bool(joint)
        """True for a reader (`reader`): it also reads the vector of the pair embedded as one passage."""
        self.joint_band = float(joint.get("band", 0.0))
        """First-stage max(update, contradiction) probability from which the reader re-scores a pair."""
        self.joint_weight = float(joint.get("weight", 1.0))
        """The reader's share of a re-scored pair's probabilities (the first stage's is the rest)."""
        self.meta: dict[str, Any] = dict(weights.get("meta", {}))
        chosen = self.meta.get("thresholds", {})
        self.update_threshold = float(chosen.get("update", 0.5))
        """Update probability from which a pair is an update, chosen on the dev scenarios when it was fitted."""
        self.contradiction_threshold = float(chosen.get("contradiction", 0.6))

    @classmethod
    def load(cls, path: str | Path | None = None, embedder: str | None = None) -> PairScorer:
        """The packaged scorer for `embedder` (one that also reads its vectors, else the generic one), or one
        fitted elsewhere, from `path`."""
        if path is None:
            return _packaged(embedder or "")
        return _from_file(str(Path(path).resolve()))

    def uses_vectors(self, embedder: str) -> bool:
        """True when this scorer reads the embedding interactions of pairs embedded by `embedder`."""
        return bool(self.vector_dim) and embedder == self.embedder

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Rows of label probabilities (LABELS order) for rows of pair features. Rows without the write-time
        blocks (span, swap) of a scorer that reads them (recall embeds nothing new) read them at their training
        mean."""
        rows = np.atleast_2d(features)
        extra = len(SPAN_FEATURES) * self.reads_spans + len(SWAP_FEATURES) * self.reads_swaps
        if extra and len(self.mean) - extra <= rows.shape[1] < len(self.mean):
            width = len(self.mean) - rows.shape[1]
            rows = np.hstack([rows, np.broadcast_to(self.mean[-width:], (len(rows), width))])
        x = (rows - self.mean) / self.scale
        logits = x @ self.coef.T + self.intercept
        if self.hidden_bias.size:
            logits = logits + np.tanh(x @ self.hidden_in.T + self.hidden_bias) @ self.hidden_out.T
        # the reductions `max` and `sum` make, called directly: a write scores a handful of rows, and the
        # method wrappers cost more than the arithmetic
        logits -= np.maximum.reduce(logits, axis=1, keepdims=True)
        exp = np.exp(logits, out=logits)
        return exp / np.add.reduce(exp, axis=1, keepdims=True)


_PACKAGED = {"e5-small": "data/pair_scorer_e5.json"}
"""Embedders with a scorer of their own (fitted on their vectors); every other embedder gets the generic one."""


@lru_cache(maxsize=8)
def _from_file(path: str) -> PairScorer:
    """A scorer fitted elsewhere, read once per process (every write batch and recall asks for it)."""
    return PairScorer(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=4)
def _resource(name: str) -> PairScorer:
    """A packaged scorer or reader (`psychoagent/<name>`), read once per process."""
    return PairScorer(json.loads(resources.files("psychoagent").joinpath(name).read_text(encoding="utf-8")))


def _packaged(embedder: str) -> PairScorer:
    return _resource(_PACKAGED.get(embedder, "data/pair_scorer.json"))


def scorer_for(cfg: ConflictConfig, embedder: str) -> PairScorer:
    """The configured (or packaged) scorer for this embedder; the generic one if it reads another's vectors."""
    scorer = PairScorer.load(cfg.scorer_path, embedder)
    if scorer.vector_dim and not scorer.uses_vectors(embedder):
        log.warning("pair scorer reads %s vectors, memory embeds with %s: using the generic scorer",
                    scorer.embedder, embedder)  # fmt: skip
        scorer = PairScorer.load(None, "")
    return scorer


_READERS = {"e5-small": "data/pair_reader_e5.json"}
"""Embedders with a packaged reader (`reader`, fitted on their vectors)."""


def reader_for(cfg: ConflictConfig, embedder: str, scorer: PairScorer) -> PairScorer | None:
    """The configured (or packaged) reader for this embedder when `ConflictConfig.reader` is on, else None; None
    too when it was fitted on another embedder's vectors or reads other blocks than `scorer` (its rows are the
    first stage's rows plus the joint block)."""
    if not (cfg.reader and cfg.detect_changes):
        return None
    if cfg.reader_path is not None:
        reader = _from_file(str(Path(cfg.reader_path).resolve()))
    elif embedder in _READERS:
        reader = _resource(_READERS[embedder])
    else:
        return None
    same_blocks = (reader.vector_dim, reader.reads_spans, reader.reads_swaps) == (
        scorer.vector_dim, scorer.reads_spans, scorer.reads_swaps)  # fmt: skip
    if not (reader.reads_joint and reader.uses_vectors(embedder) and same_blocks):
        log.warning("pair reader does not fit the %s scorer of %s: not used", scorer.embedder, embedder)
        return None
    return reader


def gate_for(cfg: ConflictConfig, embedder: str) -> Gate | None:
    """The structural gate for this embedder (`gate`), or None when `ConflictConfig.gate` is off."""
    return Gate.load(embedder, cfg.gate_path) if cfg.gate and cfg.detect_changes else None


def second_for(cfg: ConflictConfig, embedder: str) -> SecondStage | None:
    """The configured second stage when it is on and was fitted on this embedder's vectors, else None."""
    if not (cfg.second_stage and cfg.detect_changes):
        return None
    stage = SecondStage.load(cfg.second_stage_path)
    return stage if stage.embedder == embedder else None


@dataclass(frozen=True)
class Candidate:
    """An earlier (or, for late arrivals, later) unit a new unit is compared with."""

    unit_id: str
    content: str
    created: float
    dense: float
    slot_key: str | None = None
    vector: np.ndarray | None = None


@dataclass(frozen=True)
class Judgement:
    """The scorer's verdict on one pair: which unit is older, the label and its probabilities."""

    candidate: Candidate
    label: str
    probabilities: tuple[float, ...]
    new_is_older: bool

    @property
    def confidence(self) -> float:
        return self.probabilities[LABELS.index(self.label)]


def referee_pairs(
    gate: Gate | None,
    texts: Sequence[tuple[str, str]],
    denses: Sequence[float],
    probs: np.ndarray,
    labels: list[str | None],
    referee: PairJudge | None,
    embed: Embed | None,
) -> list[int]:
    """Pass the labelled pairs (and, with a referee, those in its band) through the gate: a blocked pair loses its
    label (in place); return the pairs the referee is to decide: without a gate those in its band, with one those
    the gate leaves uncertain."""
    band = referee.band if referee is not None else (2.0, 2.0)
    in_band = [i for i, p in enumerate(probs.tolist()) if band[0] <= max(p[0], p[1]) <= band[1]]
    if gate is None:
        return in_band
    todo = sorted({i for i, label in enumerate(labels) if label is not None} | set(in_band))
    if not todo:
        return []
    readings = gate.check([(*texts[i], denses[i]) for i in todo], embed)
    unsure = []
    for i, reading in zip(todo, readings, strict=True):
        if reading.verdict == "block":
            labels[i] = None
        elif reading.verdict == "unsure":
            unsure.append(i)
    return unsure if referee is not None else []


def kept(content: str, created: float, other: str, other_created: float, gated: bool) -> bool:
    """Whether a new text and a candidate are a pair `judge` scores: comparable (`pairs.comparable`) and, with the
    gate, not ruled out by its rules. The rules run first: on a store of distinct items they rule out most pairs,
    and cost less than the comparison."""
    old, new = (content, other) if created < other_created else (other, content)
    return not (gated and blocked_by_rules(old, new)) and comparable(other, content)


def rebuilt(old_text: str, new_text: str) -> str | None:
    """The full sentence a value-only correction stands for (`resolve_ellipsis`: "Sorry, I meant 4200, not 5000",
    "Scratch 3000: 3400 is right."). Without a correction or denial cue, a text that opens with a name speaks about
    that name ("Ivan named his dog Max.", "陈静对鸡蛋过敏。"): it leaves no subject out and is not rebuilt."""
    said = analyse(new_text)
    if not (said.correction or said.negation) and opens_with_name(new_text):
        return None  # without a cue, a text that opens with a name states a fact of its own about it
    return resolve_ellipsis(old_text, new_text)


def resolved_vectors(pairs: Sequence[tuple[str, str]], embed: Embed | None) -> list[np.ndarray | None]:
    """For each (older, newer) pair whose newer text is a value-only correction, the vector of the full sentence
    it stands for (`rebuilt`), embedded in one call; None for the other pairs or without an embedder. The elliptic
    text's own vector says little of the fact; the rebuilt sentence's says what changed."""
    texts = [rebuilt(old, new) for old, new in pairs] if embed is not None else []
    todo = sorted({t for t in texts if t is not None})
    if embed is None or not todo:
        return [None] * len(pairs)
    vecs = dict(zip(todo, np.asarray(embed(todo), dtype=np.float64), strict=True))
    return [None if t is None else vecs[t] for t in texts]


_WORDS: dict[Embed, WordVectors] = {}
_SWAPS: dict[Embed, TextVectors] = {}


def word_vectors(embed: Embed) -> WordVectors:
    """The word-vector cache of this embedder (one per embedder for the process; a handful at most)."""
    return cache_for(_WORDS, embed, WordVectors)


def judge(
    scorer: PairScorer,
    content: str,
    created: float,
    candidates: Sequence[Candidate],
    update_threshold: float,
    contradiction_threshold: float,
    referee: PairJudge | None = None,
    vector: np.ndarray | None = None,
    conflict_mass: float = 1.0,
    embed: Embed | None = None,
    floor: float | None = None,
    second: SecondStage | None = None,
    gate: Gate | None = None,
    embedder: str = "",
    reader: PairScorer | None = None,
) -> list[Judgement]:
    """Score the new text against each candidate; return the pairs judged update or contradiction, best first.

    With `embed` (and both vectors), a value-only correction is scored by the vector of the sentence it stands
    for: its dense similarity (normalised with `floor`) and embedding interactions. With a referee, pairs whose
    update or contradiction probability falls in its uncertainty band are decided by it (the scorer's label
    stands where it gives no answer). With `second` (and `embed` and the vectors), the pairs in its band are
    decided by the second stage (`second_stage`: masked-predicate similarity). With `gate`, every pair judged
    update or contradiction must pass the structural gate (`gate`: same subject, same single-valued attribute, a
    replacing change); the referee is asked only about the pairs the gate leaves uncertain (`referee_pairs`). With
    `reader` (and `embed` and the vectors), the pairs in its band are re-scored with the pair read as one passage
    (`reader`) before any decision."""
    candidates = [c for c in candidates if kept(content, created, c.content, c.created, gate is not None)]
    if not candidates:
        return []
    rows = []
    order = []
    denses: list[float] = []
    pair_vecs: list[tuple[np.ndarray, np.ndarray]] = []
    texts = [(content, c.content) if created < c.created else (c.content, content) for c in candidates]
    have_vectors = vector is not None and all(c.vector is not None for c in candidates)
    full_vectors = resolved_vectors(texts, embed if have_vectors else None)
    words = None
    if scorer.reads_spans:
        if embed is None:
            raise ValueError("this pair scorer reads embedded words: pass the embedder (embed=...)")
        words = word_vectors(embed)
        words.need([w for old, new in texts for w in pair_words(old, new)])
    swaps: list[str | None] = [None] * len(texts)
    swap_cache = None
    if scorer.reads_swaps and embed is not None and have_vectors:
        swaps = [swapped(old, new) for old, new in texts]
        swap_cache = cache_for(_SWAPS, embed, TextVectors)
        # a swap that restates the newer sentence word for word has that sentence's vector: nothing to embed
        swap_cache.need([t for t, (_, new) in zip(swaps, texts, strict=True) if t is not None and t != new])
    for cand, (old_text, new_text), full, swap in zip(candidates, texts, full_vectors, swaps, strict=True):
        new_is_older = created < cand.created
        old_vec, new_vec = (vector, cand.vector) if new_is_older else (cand.vector, vector)
        said_vec = new_vec
        dense = cand.dense
        if full is not None and old_vec is not None:
            new_vec = full
            dense = float(normalised_similarity(float(old_vec @ full), floor))
        row = pair_features(old_text, new_text, dense)
        if scorer.vector_dim:
            if old_vec is None or new_vec is None:
                raise ValueError("this pair scorer reads embeddings: pass the vectors of both texts")
            row = np.concatenate([row, vector_features(old_vec, new_vec)])
        if words is not None:
            row = np.concatenate([row, span_features(old_text, new_text, words, scorer.span_center)])
        if swap_cache is not None and old_vec is not None and new_vec is not None:
            vec = None if swap is None else said_vec if swap == new_text else swap_cache.vectors[swap]
            row = np.concatenate([row, swap_features(old_vec, new_vec, vec, floor)])
        rows.append(row)
        denses.append(dense)
        order.append(new_is_older)
        if old_vec is not None and new_vec is not None:
            pair_vecs.append((old_vec, new_vec))
    probs = scorer.probabilities(np.stack(rows))
    if reader is not None and embed is not None and len(pair_vecs) == len(rows):
        reread(reader, texts, rows, pair_vecs, probs, embed)
    thresholds = {"update": update_threshold, "contradiction": contradiction_threshold}
    labels: list[str | None] = []
    listed = probs.tolist()  # the same float64 values, compared as Python floats (no numpy scalar per read)
    for p in listed:
        # a label above its threshold, or update and contradiction together near certain (the larger one wins)
        label = "update" if p[0] >= p[1] else "contradiction"
        sure = p[0 if label == "update" else 1] >= thresholds[label] or p[0] + p[1] >= conflict_mass
        labels.append(label if sure else None)
    if second is not None and embed is not None and len(pair_vecs) == len(rows):
        firsts = [r[: len(FEATURES)] for r in rows]
        for i, verdict in enumerate(decide(second, texts, firsts, probs, pair_vecs, embed, floor)):
            if verdict is not False:
                labels[i] = verdict if isinstance(verdict, str) else None
    unsure = referee_pairs(gate, texts, denses, probs, labels, referee, phrase_embed(embedder, embed))
    if referee is not None and unsure:
        for i, verdict in zip(unsure, referee.decide([texts[i] for i in unsure]), strict=True):
            if verdict is not None:
                labels[i] = verdict if verdict in thresholds else None
    out: list[Judgement] = []
    for cand, p, new_is_older, decided in zip(candidates, listed, order, labels, strict=True):
        if decided is not None:
            out.append(Judgement(cand, decided, tuple(p), new_is_older))
    out.sort(key=lambda j: -j.confidence)
    return out
