"""Briefing stage: two recalled facts about one subject that answer the question about equally well and that the
pair scorer leans to read as a change or a contradiction are shown as a conflict, even when no record was written.

At write time the scorer does not know which attribute matters and needs strong evidence; a question names the
attribute, and two facts that both answer it, about the same subject, with different wording of the value, are
more likely one changed value than two attributes. Both must be among the recalled memories and the newer one at
least `recall_close_relevance` as relevant to the question as the older one (the same test the currency stage
uses to put the newer first), the newer must not repeat every content word of the older (a confirmation or an
added detail), and the update + contradiction probability must reach `brief_conflict_mass`, or the lower
`brief_answer_mass` when the newer fact replaces the older one's answer: of the words and values each fact has
beyond the question's, the newer drops the older's value and adds its own ("What diet does Felix follow?":
"gluten-free" -> "vegetarian"), where an added detail keeps it ("Ken's Toyota had its tyres changed" after "Ken
drives a red Toyota"). With e5 the pairs in the reader's band are read again as one passage (`reader`), as at
write time. The records are transient, like the slot rule's: nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from psychoagent.embed import Embedder
from psychoagent.memory.config import ConflictConfig
from psychoagent.memory.conflicts.answer_words import replaces_answer
from psychoagent.memory.conflicts.detect import (
    LABELS,
    gate_for,
    normalised_similarity,
    reader_for,
    scorer_for,
)
from psychoagent.memory.conflicts.gate import phrase_embed
from psychoagent.memory.conflicts.pairs import comparable, scored_row, turn_speaker
from psychoagent.memory.conflicts.reader import reread
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS, conflict_id
from psychoagent.memory.conflicts.spans import content_words
from psychoagent.memory.conflicts.structure import subject_of
from psychoagent.memory.conflicts.subject_keys import share_subject
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.types import ConflictRecord, Recall

__all__ = ["answer_conflicts", "answers_alike"]

_UPDATE, _CONTRADICTION = LABELS.index("update"), LABELS.index("contradiction")


def answers_alike(older: Any, newer: Any, share: float) -> Any:
    """Whether the newer fact's query relevance is at least `share` of the older one's (elementwise for arrays):
    it answers the query about as well, so less evidence of an update is needed (`ConflictConfig`)."""
    return newer >= share * older


def _restates(old_text: str, new_text: str) -> bool:
    """Whether the newer sentence repeats every content word of the older one (a confirmation or a detail added
    to the same value: "Emma confirmed that Sam's desk is in the science park."): no other answer."""
    old_words = set(content_words(old_text))
    return bool(old_words) and old_words <= set(content_words(new_text))


def speakers_own(a: str, b: str) -> bool:
    """Whether both facts are the speaker's own, told of no one else: each opens with "I"/"my" or names no owner at
    all (an instruction to the assistant: "Book the community hall ..."), and neither speaks of a relative."""
    sa, sb = subject_of(a), subject_of(b)
    return all(s.owner in ("", "<self>") and not s.person for s in (sa, sb))


def _other_chains(partners: dict[str, set[str]], a: str, b: str) -> bool:
    """Whether each fact already conflicts with another one and the two have no partner in common: each is placed in
    a chain of versions of its own attribute ("Alice moved to Paris" after "Alice lives in London", "Alice now
    wants detailed answers" after "Alice prefers short answers"), so the two give two attributes."""
    pa, pb = partners.get(a, set()) - {b}, partners.get(b, set()) - {a}
    return bool(pa and pb and pa.isdisjoint(pb))


def _answered(partners: dict[str, set[str]], old: str, new: str) -> bool:
    """Whether the newer fact already replaces another one (a stored conflict) and the older fact is in no chain:
    the newer fact's attribute is that chain's ("Book me economy from now on" after "Always book me business
    class"), so an older fact of another attribute ("My passport number ends in 4471") answers alike by topic only."""
    return bool(partners.get(new, set()) - {old}) and not partners.get(old)


def answer_conflicts(
    hits: Sequence[Recall],
    known: set[frozenset[str]],
    query: str,
    conf: ConflictConfig,
    index_of: Callable[[], NamespaceIndex],
    embedder: str | Embedder,
    floor: float | None,
) -> list[ConflictRecord]:
    """Transient records for pairs of recalled, current facts that answer the question alike and conflict by the
    scorer's reading (see the module); pairs in `known` are skipped and the found ones added to it, and so are
    pairs whose facts each already conflict with another fact and share no partner (`_other_chains`), or whose newer
    fact already replaces another while the older is in no chain (`_answered`). `index_of`
    gives the namespace index (read only when a pair qualifies), `embedder` is the embedder (or its name: the
    structural gate then embeds attribute phrases with the hash embedder), `floor` is its similarity floor. A pair
    the structural gate blocks (`gate`) is no conflict."""
    if not (conf.detect and conf.detect_changes):
        return []
    live = [
        h
        for h in hits
        if h.unit.kind not in UNCHECKED_KINDS
        and h.unit.invalid_at is None
        and "relevance" in h.parts
        and not turn_speaker(h.unit.content)
    ]
    partners: dict[str, set[str]] = {}
    for pair in known:
        for side in pair:
            partners.setdefault(side, set()).update(pair - {side})
    pairs = []
    for i, x in enumerate(live):
        for y in live[i + 1 :]:
            old, new = (x, y) if x.unit.created_at <= y.unit.created_at else (y, x)
            if old.unit.created_at == new.unit.created_at or frozenset((old.unit.id, new.unit.id)) in known:
                continue
            low = min(conf.recall_close_relevance, conf.brief_replaced_relevance)
            if not answers_alike(old.parts["relevance"], new.parts["relevance"], low):
                continue
            a, b = old.unit.content, new.unit.content
            if _other_chains(partners, old.unit.id, new.unit.id) or _answered(
                partners, old.unit.id, new.unit.id
            ):
                continue
            if (share_subject(a, b) or speakers_own(a, b)) and comparable(a, b) and not _restates(a, b):
                pairs.append((old, new))
    if not pairs:
        return []
    index = index_of()
    name = embedder if isinstance(embedder, str) else embedder.name
    scorer = scorer_for(conf, name)
    rows = []
    denses = []
    vecs = []
    for old, new in pairs:
        va, vb = (index.vector_rows(index.row_of[h.unit.id]) for h in (old, new))
        vecs.append((va, vb))
        dense = float(normalised_similarity(float(va @ vb), floor))
        denses.append(dense)
        rows.append(
            scored_row(old.unit.content, new.unit.content, dense, (va, vb) if scorer.vector_dim else None)
        )
    probs = scorer.probabilities(np.stack(rows))
    reader = None if isinstance(embedder, str) else reader_for(conf, name, scorer)
    if reader is not None and not isinstance(embedder, str):
        texts = [(old.unit.content, new.unit.content) for old, new in pairs]
        reread(reader, texts, rows, vecs, probs, embedder.embed_documents)
    found = []
    kept = []
    for (old, new), p, dense in zip(pairs, probs.tolist(), denses, strict=True):
        mass = p[_UPDATE] + p[_CONTRADICTION]
        replaced = replaces_answer(old.unit.content, new.unit.content, query)
        share = conf.brief_replaced_relevance if replaced else conf.recall_close_relevance
        if not answers_alike(old.parts["relevance"], new.parts["relevance"], share):
            continue
        if mass >= (conf.brief_answer_mass if replaced else conf.brief_conflict_mass):
            kept.append((old, new, p, mass, replaced, dense))
    gate = gate_for(conf, name)
    if gate is not None and kept:
        embed = phrase_embed(name, None if isinstance(embedder, str) else embedder.embed_documents)
        readings = gate.check([(o.unit.content, n.unit.content, d) for o, n, *_, d in kept], embed)
        kept = [k for k, r in zip(kept, readings, strict=True) if r.verdict != "block"]
    for old, new, p, mass, replaced, _ in kept:
        kind = "update" if p[_UPDATE] >= p[_CONTRADICTION] else "contradiction"
        known.add(frozenset((old.unit.id, new.unit.id)))
        found.append(
            ConflictRecord(
                id=conflict_id(old.unit.id, new.unit.id, "answer"), namespace=new.unit.namespace, kind=kind,
                side_a=old.unit.id, side_b=new.unit.id, description_a=old.unit.content,
                description_b=new.unit.content, intensity=conf.change_intensity, created_at=new.unit.created_at,
                metadata={"detected": "briefing", "probability": round(mass, 3), "answer_replaced": replaced},
            )
        )  # fmt: skip
    return found
