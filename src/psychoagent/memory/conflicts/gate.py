"""The structural gate every update or contradiction must pass: the same attribute of the same subject, an attribute
that holds one value, a newer fact that replaces rather than adds.

The pair scorer (`detect`) reads surface features and raises a conflict on related facts that are compatible: a
relative's job, another item made from the same template, a second pet, a detail of the thing. The gate reads the
pair's structure (`structure`) and decides whether a conflict is possible at all:

- rules that block outright: distinct item identifiers on both sides ("item 3" / "item 4", "zq2q3zq" / "zq2q4zq"),
  a relative the other fact does not speak of ("Jun's sister" / "Jun"), a newer fact that adds to a set ("also",
  "another", "也", "另一") without ending or replacing anything;
- a small logistic head over the attribute phrases (subject and values masked, embedded by the memory's embedder):
  their elementwise product (which dimensions of meaning the two phrases share: the same attribute in other
  words), their sum (which attribute it is, and so how likely it holds one value at a time), their similarity,
  shared words, the subject relation and how far the attribute is near a declared multi-valued one
  (`data/attribute_kinds.json`). Its weights ship in `data/conflict_gate.json`, one head per embedder family,
  fitted by `benchmarks/fit_gate.py` on dev pairs only.

The head reads attribute identity only: a change cue ("now", "moved") never makes two attributes one. A pair below
`block` is no conflict, unless the newer fact cancels, hands over or changes by an amount (then uncertain); between `block` and `sure` it is uncertain (an `LLMPairJudge`, when configured,
decides it; without one the scorer's label stands); at or above `sure` it passes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from psychoagent.memory.conflicts.facts import analyse, shared_entities
from psychoagent.memory.conflicts.spans import Embed, TextVectors, cache_for, content_words
from psychoagent.memory.conflicts.structure import (
    MASK,
    attribute_phrase,
    change_kind,
    item_ids,
    subject_of,
    subject_relation,
)
from psychoagent.text import TEXT_CACHE

__all__ = [
    "GATE_FEATURES",
    "RESHAPING",
    "Exemplars",
    "Gate",
    "Reading",
    "blocked_by_rules",
    "exemplar_stats",
    "gate_features",
    "items_apart",
    "rule_side",
]

GATE_FEATURES: tuple[str, ...] = (
    "attr_sim", "attr_z", "attr_kind_agree", "attr_words", "dense", "subject_same", "subject_detail",
    "subject_named_apart", "subject_unknown", "multi_valued", "zh", "attr_z_x_same",
)  # fmt: skip
"""Names of the gate head's features, in order (its weights are stored against these names)."""


@dataclass(frozen=True)
class Reading:
    """The gate's verdict on one (older, newer) pair: "block", "unsure" or "pass", the head's probability that the
    pair can conflict (1 or 0 for a rule) and the reason ("items", "other_subject", "adds" or "head")."""

    verdict: str
    p: float
    reason: str


class _Side(NamedTuple):
    """What the rules read of one sentence, whichever side of a pair it is on (`_side`, cached per text)."""

    ids: frozenset[str]
    entities: frozenset[str]
    owner: str
    correction: bool
    cues: frozenset[str]
    past: bool
    replaces: bool


@lru_cache(maxsize=TEXT_CACHE)
def rule_side(text: str) -> _Side:
    """The rules' reading of one sentence: a store's texts meet many new ones, and each is read once."""
    view = analyse(text)
    return _Side(item_ids(text), view.entities, subject_of(text).owner, bool(view.correction), change_kind(text),
                 _PAST.search(text) is not None, _replaces(text))  # fmt: skip


def items_apart(o: _Side, n: _Side) -> bool:
    """The "items" rule of `blocked_by_rules` on the two sides' readings (older `o`, newer `n`): each names an
    identifier the other does not. Items of one subject ("Ines' parking spot is space 27") are its values: only
    facts sharing no name and not both the speaker's tell two items apart by their identifiers, and a correction
    ("Actually the password is sunflower23") changes an identifier."""
    return bool(
        o.ids
        and n.ids
        and "replace" not in n.cues
        and not n.correction
        and o.owner != "<self>"
        and n.owner != "<self>"
        and not o.ids <= n.ids
        and not n.ids <= o.ids
        and not (o.entities and n.entities and shared_entities(o.entities, n.entities))
    )


def blocked_by_rules(old_text: str, new_text: str) -> str | None:
    """The rule that rules out a conflict between the two facts, or None: "items" (each names an item the other
    does not: two things of one kind), "other_subject" (a relative the other fact does not speak of),
    "value_detail" (the newer one tells of the thing the older one gives as its value, and ends or hands over
    nothing), "past" (the older one is told as over: "used to", "以前"), "adds" (the newer one adds to a set and neither ends nor replaces anything)."""
    o, n = rule_side(old_text), rule_side(new_text)
    if items_apart(o, n):
        return "items"
    relation = subject_relation(old_text, new_text)
    if relation == "other":
        return "other_subject"
    if relation == "value_detail" and not n.cues & {"cancel", "handover"}:
        return "value_detail"
    if o.past and not n.past:
        return "past"  # "Zoe used to live in Paris" / "Zoe lives in Brighton": the older one was told as over
    if "add" in n.cues and not n.cues & RESHAPING and not n.replaces:
        return "adds"
    return None


_PAST = re.compile(r"\bused to\b|以前|曾经|过去|当过|读过|住过")
"""An older fact told as already over: a present fact adds to it, never replaces it."""


def lifted(old_text: str, new_text: str) -> bool:
    """Whether the head may leave a pair uncertain but never block it: the newer fact cancels, hands over or changes
    by an amount (`RESHAPING`: the attribute in other words), corrects, or both are told by a source ("The HR file says ...",
    "Viktor's passport says ...": the frame, not the attribute, fills the phrase)."""
    said = analyse(new_text)
    if change_kind(new_text) & RESHAPING or said.correction:
        return True  # a correction may name only the value ("Sorry, I meant 24, not 26"): no attribute phrase
    return analyse(old_text).source and said.source


def _replaces(text: str) -> bool:
    """Whether a sentence with an adding cue still says the old value is gone ("instead", "no longer", "不再")."""
    lower = text.lower()
    cues = ("instead", "no longer", "anymore", "any more", "switched", "changed", "moved", "in total", "altogether",
            "不再", "改", "换", "搬", "一共", "总共")  # fmt: skip
    return any(cue in lower for cue in cues)


def _words(phrase: str) -> frozenset[str]:
    return frozenset(w for w in content_words(phrase.replace(MASK, " ")) if w != MASK)


class Exemplars(NamedTuple):
    """The declared attribute phrases (`data/attribute_kinds.json`) as unit vectors of one embedder, and which of
    them are multi-valued."""

    vectors: np.ndarray
    multi: np.ndarray
    temperature: float


def exemplar_stats(a: np.ndarray, b: np.ndarray, ex: Exemplars) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows of attribute-phrase vectors (older `a`, newer `b`): how far their cosine stands out from each
    phrase's cosines to the declared attributes (a z-score, both sides averaged: an embedder that finds every
    short phrase alike tells the same attribute by standing out), how alike their nearest declared attributes are
    (cosine of the two softmax distributions) and how far the older is nearer a multi-valued attribute."""
    cos = np.einsum("ij,ij->i", a, b)
    sa, sb = a @ ex.vectors.T, b @ ex.vectors.T
    z = (
        (cos - sa.mean(axis=1)) / (sa.std(axis=1) + 1e-9) + (cos - sb.mean(axis=1)) / (sb.std(axis=1) + 1e-9)
    ) / 2
    pa = np.exp((sa - sa.max(axis=1, keepdims=True)) / ex.temperature)
    pb = np.exp((sb - sb.max(axis=1, keepdims=True)) / ex.temperature)
    agree = np.einsum("ij,ij->i", pa, pb) / np.sqrt(
        np.einsum("ij,ij->i", pa, pa) * np.einsum("ij,ij->i", pb, pb)
    )
    multi = sa[:, ex.multi].max(axis=1) - sa[:, ~ex.multi].max(axis=1)
    return z, agree, multi


def gate_features(
    old_text: str, new_text: str, sim: float, z: float, agree: float, multi: float, dense: float
) -> np.ndarray:
    """GATE_FEATURES of a pair from its attribute phrases' cosine and `exemplar_stats`, and the pair's normalised
    dense similarity."""
    wa, wb = _words(attribute_phrase(old_text)), _words(attribute_phrase(new_text))
    jac = len(wa & wb) / len(wa | wb) if wa | wb else 1.0
    rel = subject_relation(old_text, new_text)
    same = 1.0 if rel == "same" else 0.0
    values = (
        sim, z, agree, jac, dense, same, float(rel == "detail"), float(rel == "named_apart"),
        float(rel == "unknown"), multi, float(any("\u4e00" <= ch <= "\u9fff" for ch in new_text)), z * same,
    )  # fmt: skip
    return np.asarray(values, dtype=np.float64)


_PHRASES: dict[Embed, TextVectors] = {}
RESHAPING = frozenset({"cancel", "handover", "relative"})
"""Changes told in other words than the value they change ("called off", "elected a new captain", "doubled"):
the head's low attribute similarity leaves such a pair uncertain, never blocked."""


class Gate:
    """The rules and the learned head of one embedder family (weights loaded from JSON; numpy inference)."""

    def __init__(self, weights: dict[str, Any], kinds: dict[str, Any]) -> None:
        if tuple(weights["features"]) != GATE_FEATURES:
            raise ValueError(f"gate weights were fitted for other features: {weights['features']}")
        self.vector = int(weights.get("vector", 0))
        """Dimension of the phrase vectors whose product and sum follow the scalar features (0: scalars only)."""
        self.mean = np.asarray(weights["mean"], dtype=np.float64)
        self.scale = np.asarray(weights["scale"], dtype=np.float64)
        self.coef = np.asarray(weights["coef"], dtype=np.float64)
        self.intercept = float(weights["intercept"])
        self.block = float(weights["block"])
        """Head probability below which a pair is no conflict (chosen on dev by `fit_gate`)."""
        self.sure = float(weights["sure"])
        """Head probability from which a pair passes without a judge (chosen on dev by `fit_gate`)."""
        self.floor = float(weights.get("floor", 0.0))
        """The phrase embedder's cosine of unrelated texts (normalises the attribute similarity)."""
        self.temperature = float(weights.get("temperature", 0.05))
        """Softmax temperature over the declared attributes' cosines (the embedder's cosine spread)."""
        self.family: str = weights["family"]
        self.meta: dict[str, Any] = dict(weights.get("meta", {}))
        self.kinds = kinds
        self._exemplars: dict[int, tuple[TextVectors, Exemplars]] = {}

    @classmethod
    def load(cls, embedder: str, path: str | Path | None = None) -> Gate:
        """The packaged gate for this embedder's family ("e5-small", else "hash"), or one fitted elsewhere."""
        return _load(family_of(embedder), str(Path(path).resolve()) if path is not None else "")

    def exemplars(self, vectors: TextVectors) -> Exemplars:
        """The declared attribute phrases embedded by this cache's embedder (once per cache)."""
        known = self._exemplars.get(id(vectors))
        if known is not None and known[0] is vectors:
            return known[1]
        multi = [t for lang in self.kinds["multi"].values() for t in lang]
        single = [t for lang in self.kinds["single"].values() for t in lang]
        vectors.need([*multi, *single])
        matrix = np.stack([vectors.vectors[t] for t in (*multi, *single)])
        flags = np.arange(len(matrix)) < len(multi)
        found = Exemplars(matrix, flags, self.temperature)
        self._exemplars = {id(vectors): (vectors, found)}
        return found

    def rows(self, pairs: Sequence[tuple[str, str, float]], embed: Embed) -> np.ndarray:
        """GATE_FEATURES rows of (older, newer, dense) pairs, their attribute phrases embedded in one call."""
        vectors = cache_for(_PHRASES, embed, TextVectors)
        olds = [attribute_phrase(o) for o, _, _ in pairs]
        news = [attribute_phrase(n) for _, n, _ in pairs]
        ex = self.exemplars(vectors)
        vectors.need([*olds, *news])
        a = np.stack([vectors.vectors[t] for t in olds])
        b = np.stack([vectors.vectors[t] for t in news])
        return self.table(pairs, a, b, ex)

    def table(
        self, pairs: Sequence[tuple[str, str, float]], a: np.ndarray, b: np.ndarray, ex: Exemplars
    ) -> np.ndarray:
        """GATE_FEATURES rows from the attribute-phrase vectors of the pairs (older `a`, newer `b`)."""
        cos = np.einsum("ij,ij->i", a, b)
        sim = np.clip((cos - self.floor) / max(1.0 - self.floor, 1e-9), 0.0, 1.0)
        z, agree, multi = exemplar_stats(a, b, ex)
        scalars = np.stack([
            gate_features(o, n, float(s_), float(z_), float(g_), float(m_), d)
            for (o, n, d), s_, z_, g_, m_ in zip(pairs, sim, z, agree, multi, strict=True)
        ])  # fmt: skip
        if not self.vector:
            return scalars
        if a.shape[1] != self.vector:
            raise ValueError(f"gate head fitted on {self.vector}-d phrase vectors, given {a.shape[1]}-d")
        return np.hstack([scalars, a * b, a + b])

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """The head's probability that each pair can be a conflict."""
        z = (np.atleast_2d(rows) - self.mean) / self.scale
        return np.asarray(1.0 / (1.0 + np.exp(-(z @ self.coef + self.intercept))), dtype=np.float64)

    def check(self, pairs: Sequence[tuple[str, str, float]], embed: Embed | None) -> list[Reading]:
        """The reading of each (older, newer, normalised dense similarity) pair: rules first, then the head (the
        attribute phrases embedded by `embed`, or by the hash embedder when none is given)."""
        out: list[Reading | None] = []
        todo = []
        for i, (old, new, _) in enumerate(pairs):
            rule = blocked_by_rules(old, new)
            out.append(Reading("block", 0.0, rule) if rule else None)
            if rule is None:
                todo.append(i)
        if todo:
            probs = self.probabilities(self.rows([pairs[i] for i in todo], embed or _hash_embed()))
            for i, p in zip(todo, probs.tolist(), strict=True):
                verdict = "block" if p < self.block else "unsure" if p < self.sure else "pass"
                if verdict == "block" and lifted(pairs[i][0], pairs[i][1]):
                    verdict = "unsure"
                out[i] = Reading(verdict, p, "head")
        return [r for r in out if r is not None]


def family_of(embedder: str) -> str:
    """The gate head family of an embedder name: its own for e5, the hash head for every other embedder (whose
    attribute phrases are then embedded by the hash embedder, see `phrase_embed`)."""
    return "e5-small" if embedder == "e5-small" else "hash"


def phrase_embed(embedder: str, embed: Embed | None) -> Embed | None:
    """The embedder the gate embeds attribute phrases with: the memory's for e5 (its head was fitted on them), the
    hash embedder for every other one."""
    return embed if family_of(embedder) == "e5-small" else _hash_embed()


@lru_cache(maxsize=1)
def _hash_embed() -> Callable[[list[str]], np.ndarray]:
    from psychoagent.embed import get_embedder

    return get_embedder("hash-256").embed_documents


@lru_cache(maxsize=8)
def _load(family: str, path: str) -> Gate:
    root = resources.files("psychoagent")
    text = (
        Path(path).read_text(encoding="utf-8")
        if path
        else root.joinpath("data/conflict_gate.json").read_text(encoding="utf-8")
    )
    heads = json.loads(text)
    kinds = json.loads(root.joinpath("data/attribute_kinds.json").read_text(encoding="utf-8"))
    return Gate(heads[family], kinds)
