"""How two fact sentences relate: the features of the update/contradiction scorer.

A pair of sentences (older, newer), each analysed by `facts`, becomes a fixed-length feature vector
(`FEATURES`); the learned scorer in `detect` turns it into probabilities of update / contradiction /
elaboration / unrelated. Cue words are features, never the decision.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from psychoagent.affect.changes import is_change_of, signature
from psychoagent.affect.slots import extract_slots
from psychoagent.memory.conflicts.align import aligned_change
from psychoagent.memory.conflicts.facts import (
    FactView,
    _surface,
    _zh_tagged,
    analyse,
    entity_at,
    framed,
    names_someone_by_pronoun,
    refers_back,
    shared_entities,
    subjects,
    turn_speaker,
)
from psychoagent.memory.conflicts.values import elliptic, first_named, names_old_value, resolve_ellipsis
from psychoagent.text import TEXT_CACHE

__all__ = [
    "FEATURES", "VECTOR_FEATURES", "analyse", "comparable", "elliptic", "first_named_apart", "framed", "names_old_value", "pair_features",
    "refers_back", "resolve_ellipsis", "scored_row", "shared_entities", "slot_clash", "subjects", "turn_speaker", "vector_features",
]  # fmt: skip

FEATURES: tuple[str, ...] = (
    "dense", "dense_sq", "shared_entity", "self_both", "entity_jaccard", "content_jaccard", "content_in_new",
    "content_in_old", "old_only_content", "new_only_content", "numbers_both", "numbers_differ", "numbers_shared",
    "times_differ", "times_shared", "old_values_dropped", "new_values_added", "old_value_kept", "negation_new",
    "negation_old", "change_new", "correction_new", "source_new", "source_old", "relative_new", "slot_clash",
    "change_rule", "log_length_ratio", "zh", "subject_x_dense", "subject_x_dropped", "subject_x_change",
    "subject_x_negation", "dense_x_differ", "dropped_x_added", "content_x_differ", "no_subject_x_dense",
    "other_subjects", "replacement", "old_value_repeated", "new_has_subject", "dense_x_content",
    "near_paraphrase", "old_covered", "framed_old", "framed_new", "framed_both", "framed_both_x_differ",
    "old_value_named", "old_value_named_x_added", "old_value_named_x_negation", "refers_back",
    "first_named_apart", "subject_swap", "aligned_change",
)  # fmt: skip
"""Names of the pair features, in order (the scorer's weights are stored against these names)."""


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def pair_features(old_text: str, new_text: str, dense: float) -> np.ndarray:
    """Feature vector of (older fact, newer fact) given their dense similarity normalised to [0, 1]. An elliptic
    correction ("Sorry, I meant 4200, not 5000") is read as the full sentence it stands for, keeping its cues."""
    # `resolve_ellipsis` is None unless the pair is elliptic: asked only then, its cache holds the elliptic pairs
    resolved = resolve_ellipsis(old_text, new_text) if elliptic(old_text, new_text) else None
    if resolved is None:
        return _features(old_text, new_text, dense)
    row = _features(old_text, resolved, dense)
    said = analyse(new_text)
    for name, cue in (("correction_new", said.correction), ("negation_new", said.negation)):
        row[FEATURES.index(name)] = max(row[FEATURES.index(name)], float(cue))
    return row


def _features(old_text: str, new_text: str, dense: float) -> np.ndarray:
    o, n = analyse(old_text), analyse(new_text)
    shared_ent = shared_entities(o.entities, n.entities)
    self_both = o.self_ref and n.self_ref
    # a sentence that names no subject of its own but repeats a value of the older one is about the older one's
    # subject ("Sorry, I meant 4200, not 5000", "把周一划掉，周五才对"): the subject is inherited
    inherited = elliptic(old_text, new_text)
    subject = 1.0 if shared_ent or self_both or inherited else 0.0
    new_surface = _surface(new_text)
    o_text, n_text = _surface(old_text).number_text, new_surface.number_text
    old_vals = (o.entities - n.entities) | {o_text[x] for x in o.numbers - n.numbers} | (o.times - n.times)
    new_vals = (n.entities - o.entities) | {n_text[x] for x in n.numbers - o.numbers} | (n.times - o.times)
    shared_numbers, shared_times = not o.numbers.isdisjoint(n.numbers), not o.times.isdisjoint(n.times)
    kept = (
        bool((o.entities - shared_ent - n.entities) == set() and (o.entities - shared_ent)) or shared_numbers
    )
    inter = len(o.content & n.content)
    numbers_differ = 1.0 if o.numbers and n.numbers and o.numbers != n.numbers else 0.0
    times_differ = 1.0 if o.times and n.times and o.times != n.times else 0.0
    differ = max(numbers_differ, times_differ, 1.0 if old_vals and new_vals else 0.0)
    dropped = min(len(old_vals), 3) / 3.0
    added = min(len(new_vals), 3) / 3.0
    clash = slot_clash(old_text, new_text)
    # the change rule needs a change marker in the newer sentence: without one neither signature is read
    change_rule = (
        1.0 if new_surface.change_marker and is_change_of(signature(new_text), signature(old_text)) else 0.0
    )
    content_j = _jaccard(o.content, n.content)
    # everything the old sentence states (names, numbers, times, content words) is said again by the new one
    covered = (
        1.0
        if o.entities <= n.entities
        and o.numbers <= n.numbers
        and o.times <= n.times
        and (inter >= max(1, len(o.content) - 1))
        else 0.0
    )
    # both name someone, but nobody in common: another entity's value, not a change of this one
    other_subjects = 1.0 if o.entities and n.entities and not shared_ent and not self_both else 0.0
    repeated = 1.0 if shared_numbers or shared_times else 0.0
    # the new sentence names the old value and another one: "from 5000 to 4200", "not 5000 - 4200"
    fresh = not (n.numbers <= o.numbers and n.times <= o.times)
    replacement = 1.0 if repeated and fresh else 0.0
    where = shared_ent if shared_ent else (frozenset({"<self>"}) if self_both else frozenset())
    framed_old, framed_new = (
        framed(old_text, where, o.entities - shared_ent),
        framed(new_text, where, n.entities - shared_ent),
    )
    # the newer sentence repeats a value of the older one besides its subject ("not 5000 - 4200", "不是盒马")
    named = 1.0 if names_old_value(old_text, new_text) else 0.0
    # each sentence's first-named thing (its subject) is missing from the other: another subject's fact, above
    # all when they share a value ("Priya sees Dr. Moreau" / "Luke sees Dr. Moreau")
    first_old, first_new = first_named(old_text), first_named(new_text)
    # 0 unless both name a different first thing: only such pairs are looked up (and kept) in its cache
    apart = (
        0.0
        if first_old is None or first_new is None or first_old == first_new
        else first_named_apart(old_text, new_text)
    )
    swap = apart * (1.0 if shared_ent or repeated else 0.0)
    values = (
        dense, dense * dense, 1.0 if shared_ent or inherited else 0.0, 1.0 if self_both else 0.0,
        _jaccard(o.entities, n.entities), content_j, inter / max(len(n.content), 1),
        inter / max(len(o.content), 1), min(len(o.content - n.content), 4) / 4.0,
        min(len(n.content - o.content), 4) / 4.0, 1.0 if o.numbers and n.numbers else 0.0, numbers_differ,
        1.0 if shared_numbers else 0.0, times_differ, 1.0 if shared_times else 0.0, dropped, added,
        1.0 if kept else 0.0, float(n.negation), float(o.negation), float(n.change), float(n.correction),
        float(n.source), float(o.source), float(n.relative), clash, change_rule,
        math.log((n.length + 1) / (o.length + 1)), 1.0 if n.zh else 0.0, subject * dense, subject * dropped,
        subject * float(n.change), subject * float(n.negation), dense * differ, dropped * added, content_j * differ,
        (1.0 - subject) * dense, other_subjects, replacement, repeated, 1.0 if n.entities or n.self_ref else 0.0,
        dense * content_j, max(0.0, dense - 0.85) / 0.15, covered, framed_old, framed_new,
        framed_old * framed_new, framed_old * framed_new * differ, named, named * added,
        named * float(n.negation), 1.0 if refers_back(new_text) else 0.0, apart, swap,
        1.0 if aligned_change(old_text, new_text, first_old) else 0.0,
    )  # fmt: skip
    return np.asarray(values, dtype=np.float64)


@lru_cache(maxsize=TEXT_CACHE)
def first_named_apart(old_text: str, new_text: str) -> float:
    """1 when both sentences name a first thing and neither's first-named thing occurs in the other (cached per
    pair: recall scores the same pairs again)."""
    a, b = first_named(old_text), first_named(new_text)
    if a is None or b is None or a == b:
        return 0.0
    return 1.0 if a not in _surface(new_text).lower and b not in _surface(old_text).lower else 0.0


def comparable(old_text: str, new_text: str) -> bool:
    """Whether two facts can be about the same subject at all: not when both name someone and nobody in common
    (and the speaker is not in both; in Chinese, not when each opens with another person, `_two_people`), not
    when they are the same sentence (a repetition changes nothing), and not
    when only the people or things they name differ (the same claim by or about someone else)."""
    so, sn = _surface(old_text), _surface(new_text)
    if so.folded == sn.folded:
        return False
    o, n = analyse(old_text), analyse(new_text)
    if o.speaker or n.speaker:
        return False  # a chat turn ("Name: ...") is an utterance, not a stated fact: greetings, stories, questions
    if (so.asks or sn.asks) and not (sn.qa or so.qa):
        return False  # a question asks, it states no fact
    if so.occasion and sn.occasion:
        return False  # each tied to the day it was said ("today", "yesterday"): two occasions, not one changed fact
    if _same_claim_by_another(old_text, new_text, o, n):
        return False
    if _two_people(old_text, new_text, o, n):
        return False
    shared = shared_entities(o.entities, n.entities)
    if not (o.entities and n.entities and not shared and not (o.self_ref and n.self_ref)):
        return True
    # a pronoun for someone ("she", "他") may stand for the older one's subject; a bare "it" ("it's different now:
    # Leila ...") names nobody
    return names_someone_by_pronoun(new_text) or names_old_value(old_text, new_text)


def _same_claim_by_another(old_text: str, new_text: str, o: FactView, n: FactView) -> bool:
    """Whether the two say the same about someone else, or the same said by someone else ("赵丽说拉萨的天气很好" /
    "张敏说拉萨的天气很好"): only the first-named entity differs, every value after it is the same. A renamed
    thing ("the cat is called Luna" / "... Nova") differs after its first name and stays comparable."""
    if o.content != n.content or o.numbers != n.numbers or o.times != n.times or o.entities == n.entities:
        return False
    first_o, first_n = _first_entity(old_text, o), _first_entity(new_text, n)
    return first_o != first_n and o.entities - {first_o} == n.entities - {first_n}


def _two_people(old_text: str, new_text: str, o: FactView, n: FactView) -> bool:
    """Chinese: each sentence opens with a person (its subject) whom the other never names, and they are not two
    people's claims ("何军对芹菜过敏。" / "陈静对鸡蛋过敏。", "刘洋看了一部关于桂林的纪录片" / "杨磊说桂林的天气很好"):
    two people's facts, whatever else both name. Two witnesses of one fact ("张伟很肯定李娜…" / "王芳坚持说李娜…")
    stay comparable."""
    if not (o.opens_with_person and n.opens_with_person):
        return False
    old_tags, new_tags = _zh_tagged(old_text), _zh_tagged(new_text)
    first_o, first_n = old_tags[0][0], new_tags[0][0]
    if first_o == first_n or first_o in new_text or first_n in old_text:
        return False
    return not (_claims(old_tags) and _claims(new_tags))


_VERB_RUN = ("v", "d", "i", "l", "zg")
"""jieba tags of the words between a person and what they claim (verbs, adverbs, idioms such as 一口咬定)."""
_NOT_CLAUSE = ("u", "m", "q", "x")
"""Tags after which no clause follows the verb: an aspect particle (看了, 搬到了), a count, punctuation."""


def _claims(tags: list[tuple[str, str]]) -> bool:
    """Whether the opening person's verbs take a clause, what they say, believe or insist ("张伟很肯定李娜的…",
    "王涛一口咬定…"), rather than tell what they did ("刘洋看了一部…") or have ("何军对芹菜过敏")."""
    run = 0
    for _, flag in tags[1:]:
        if flag.startswith(_VERB_RUN):
            run += 1
            continue
        return run > 0 and not flag.startswith(_NOT_CLAUSE)
    return False


def _first_entity(text: str, view: FactView) -> str:
    lower = text.lower()
    return min(
        view.entities, key=lambda e: (entity_at(text, lower, e) if e in lower else len(text), e), default=""
    )


VECTOR_FEATURES: tuple[str, ...] = ("product", "abs_difference", "difference")
"""The embedding-interaction block of a scorer that reads vectors, in order (each the embedding's width)."""


def vector_features(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Embedding interactions of a pair: which meaning dimensions they share (product), where they differ, and in
    which direction the newer one moves (newer less older: a change reads otherwise than an added detail)."""
    return np.concatenate([old * new, np.abs(old - new), new - old]).astype(np.float64)


def scored_row(
    old_text: str, new_text: str, dense: float, vectors: tuple[np.ndarray, np.ndarray] | None
) -> np.ndarray:
    """A recall-time scorer row: the pair features, then the embedding interactions when the scorer reads them
    (`vectors` of the older and the newer fact; None for a scorer without them)."""
    row = pair_features(old_text, new_text, dense)
    return row if vectors is None else np.concatenate([row, vector_features(*vectors)])


def slot_clash(old_text: str, new_text: str) -> float:
    """1 when the rule-based slot extractor finds the same slot with different values."""
    old_slots = extract_slots(old_text)
    if not old_slots:
        return 0.0
    return 1.0 if any(s.contradicts(o) for s in extract_slots(new_text) for o in old_slots) else 0.0
