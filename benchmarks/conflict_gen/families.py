"""Phrasing families: each turns one slot, one subject and two values into an (old, new, question) triple.

Change families state a newer value (label `update`); contradiction families give two sources that disagree
with no time order; compatible families add something that does not change the value (must not be flagged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import lexicon as lx
from .render import Subject, bare, capital, count_word, fill, people, person, pick
from .slots import Slot


@dataclass
class Ctx:
    """Everything a family needs to phrase one scenario."""

    lang: str
    slot: Slot
    subj: Subject
    old: str
    new: str
    rng: np.random.Generator
    siblings: tuple[Slot, ...]  # other slots of the same domain

    def say(
        self, templates: tuple[str, ...], v: str, mode: str = "name", embed: bool = False, **kw: str
    ) -> str:
        """One of `templates` filled for this subject."""
        return fill(self.lang, pick(self.rng, templates), self.subj, mode, v=v, embed=embed, **kw)

    def other(self, n: int = 1) -> list[str]:
        """Names of people other than the subject."""
        return people(self.lang, self.rng, n, exclude=(self.subj.name,))

    def question(self, mode: str = "name") -> str:
        """The question that asks for the current value."""
        return self.say(self.slot.q, "", mode)

    def state(self, v: str, mode: str = "name", embed: bool = False) -> str:
        """A plain statement of value `v`."""
        return self.say(self.slot.fact, v, mode, embed)

    def changed(self, v: str, mode: str = "name", embed: bool = False) -> str:
        """A statement that the value changed to `v` (a change verb when the slot has one)."""
        templates = self.slot.change if self.slot.change and self.rng.random() < 0.6 else self.slot.fact
        return self.say(templates, v, mode, embed)

    def join(self, template: str, **kw: str) -> str:
        """Fill a domain-independent template and start it with a capital letter."""
        return capital(template.format(**kw)) if self.lang == "en" else template.format(**kw)


Triple = tuple[str, str, str]  # old text, new text, question
Family = Callable[[Ctx], Triple | None]


def explicit_cue(c: Ctx) -> Triple:
    """A cue phrase announces the change ("Update: ...")."""
    new = pick(c.rng, lx.CUES[c.lang]) + c.changed(c.new, embed=True)
    return c.state(c.old), new, c.question()


def change_verb(c: Ctx) -> Triple | None:
    """A change verb and no cue word ("Anna moved to Lyon.")."""
    if not c.slot.change:
        return None
    return c.state(c.old), c.say(c.slot.change, c.new), c.question()


def implicit(c: Ctx) -> Triple:
    """The new value stated plainly in another wording, nothing marks a change."""
    facts = c.slot.fact
    i = int(c.rng.integers(0, len(facts)))
    j = (i + 1 + int(c.rng.integers(0, len(facts) - 1))) % len(facts) if len(facts) > 1 else i
    old = fill(c.lang, facts[i], c.subj, v=c.old)
    return old, fill(c.lang, facts[j], c.subj, v=c.new), c.question()


def relative(c: Ctx) -> Triple | None:
    """A change relative to the old value ("two more guests, six now"); numeric slots only."""
    if c.slot.num is None or not (c.slot.up or c.slot.down):
        return None
    lo, hi, step = c.slot.num
    d = step * int(pick(c.rng, tuple(str(x) for x in c.slot.deltas)))
    base = int(c.old)
    options = [(t, base + d) for t in c.slot.up if base + d <= hi] + [
        (t, base - d) for t in c.slot.down if base - d >= lo
    ]
    if not options:
        return None
    template, value = options[int(c.rng.integers(0, len(options)))]
    c.new = str(value)
    new = fill(c.lang, template, c.subj, v=c.new, d=count_word(c.lang, d))
    return c.state(c.old), new, c.question()


def negated_old(c: Ctx) -> Triple | None:
    """The old value negated and the new one stated ("no longer ...; ... now")."""
    if not c.slot.neg:
        return None
    return c.state(c.old), c.say(c.slot.neg, c.new, o=c.old), c.question()


def reported_speech(c: Ctx) -> Triple:
    """Someone (the subject or another person) reports the new value."""
    if c.slot.personal and c.rng.random() < 0.5:
        speaker, mode = c.subj.name, "pron"
    else:
        speaker, mode = c.other()[0], "name"
    said = c.changed(c.new, mode, embed=True)
    return c.state(c.old), c.join(pick(c.rng, lx.SPEECH[c.lang]), x=speaker, f=said), c.question()


def passive(c: Ctx) -> Triple | None:
    """The change in the passive voice."""
    if not c.slot.pas:
        return None
    return c.state(c.old), c.say(c.slot.pas, c.new), c.question()


def alias(c: Ctx) -> Triple | None:
    """The subject worded differently in the two facts ("my sister Anna" / "my sister")."""
    if not c.subj.role:
        return None
    if c.subj.gender == "it" or c.rng.random() < 0.5:
        old_mode, new_mode = ("name", "role") if c.subj.gender == "it" else ("name_role", "role")
    else:
        old_mode, new_mode = "role", "name_role"
    return c.state(c.old, old_mode), c.changed(c.new, new_mode), c.question()


def long_detail(c: Ctx) -> Triple:
    """The change buried in a long sentence full of unrelated detail."""
    said = c.changed(c.new, embed=True)
    template = pick(c.rng, lx.LONG[c.lang])
    new = c.join(template, x=c.other()[0], f=said, F=bare(capital(said)))
    return c.state(c.old), new, c.question()


def correction(c: Ctx) -> Triple:
    """The speaker corrects what was said before, sometimes naming only the values."""
    template = pick(c.rng, lx.CORRECTIONS[c.lang])
    return c.state(c.old), c.join(template, v=c.new, o=c.old, f=c.state(c.new, embed=True)), c.question()


def qa(c: Ctx) -> Triple:
    """The new value as the answer in a question-answer exchange."""
    template = pick(c.rng, lx.QA[c.lang])
    question = c.question()
    return c.state(c.old), template.format(q=question, v=c.new, x=c.other()[0]), question


def first_person(c: Ctx) -> Triple | None:
    """The user talks about themself ("I moved to Lyon"); the question names the user."""
    if not c.slot.personal:
        return None
    if c.lang == "zh":
        return c.state(c.old, "user"), c.changed(c.new, "user"), c.question("user")
    if not c.slot.first:
        return None
    new = c.say(c.slot.first_change or c.slot.first, c.new)
    return c.say(c.slot.first, c.old), new, c.question("user")


def source_conflict(c: Ctx) -> Triple:
    """Two sources disagree about the same moment; no time order is implied."""
    s1, s2 = (str(x) for x in c.rng.choice(lx.SOURCES[c.lang], size=2, replace=False))
    forms = lx.SOURCE_FORMS[c.lang]
    old = c.join(pick(c.rng, forms), s=s1, S=capital(s1), f=c.state(c.old, embed=True))
    new = c.join(pick(c.rng, forms), s=s2, S=capital(s2), f=c.state(c.new, embed=True))
    return old, new, c.question()


def witness_conflict(c: Ctx) -> Triple:
    """Two people disagree about the same moment; no time order is implied."""
    x1, x2 = c.other(2)
    forms = lx.WITNESS_FORMS[c.lang]
    old = c.join(pick(c.rng, forms), x=x1, f=c.state(c.old, embed=True))
    new = c.join(pick(c.rng, forms), x=x2, f=c.state(c.new, embed=True))
    return old, new, c.question()


def elaboration(c: Ctx) -> Triple | None:
    """A compatible detail about the old value ("Ken's Toyota had its tyres changed")."""
    if not c.slot.elab:
        return None
    c.new = c.old
    return c.state(c.old), c.say(c.slot.elab, c.old, o=c.old), c.question()


def additional_fact(c: Ctx) -> Triple | None:
    """Another attribute of the same subject from the same domain."""
    same = [s for s in c.siblings if s.personal == c.slot.personal]
    if not same:
        return None
    other = same[int(c.rng.integers(0, len(same)))]
    c.new = c.old
    new = fill(c.lang, pick(c.rng, other.fact), c.subj, v=pick(c.rng, other.pool()))
    return c.state(c.old), new, c.question()


def restatement(c: Ctx) -> Triple:
    """The same value again in other words or confirmed by someone: not a change."""
    c.new = c.old
    facts = c.slot.fact
    old_t = pick(c.rng, facts)
    old = fill(c.lang, old_t, c.subj, v=c.old)
    rest = [t for t in facts if t != old_t]
    if rest and c.rng.random() < 0.6:
        return old, fill(c.lang, pick(c.rng, rest), c.subj, v=c.old), c.question()
    template = pick(c.rng, lx.CONFIRM[c.lang])
    return old, c.join(template, x=c.other()[0], f=c.state(c.old, embed=True)), c.question()


def other_entity(c: Ctx) -> Triple:
    """The same attribute of a different person or organisation."""
    if c.slot.personal:
        who = person(c.lang, c.rng, exclude=(c.subj.name,))
    else:
        names = [e for e in c.slot.entities if e[0] != c.subj.name]
        name, role = names[int(c.rng.integers(0, len(names)))]
        who = Subject(name, "it", role)
    c.new = c.old
    value = pick(c.rng, c.slot.pool())
    templates = c.slot.change + c.slot.fact if c.rng.random() < 0.5 else c.slot.fact
    new = fill(c.lang, pick(c.rng, templates), who, v=value)
    return c.state(c.old), new, c.question()


UPDATE: dict[str, Family] = {
    "explicit_cue": explicit_cue, "change_verb": change_verb, "implicit": implicit, "relative": relative,
    "negated_old": negated_old, "reported_speech": reported_speech, "passive": passive, "alias": alias,
    "long_detail": long_detail, "correction": correction, "qa": qa, "first_person": first_person,
}  # fmt: skip
CONTRADICTION: dict[str, Family] = {"source_conflict": source_conflict, "witness_conflict": witness_conflict}
COMPATIBLE: dict[str, Family] = {
    "elaboration": elaboration, "additional_fact": additional_fact, "restatement": restatement,
    "other_entity": other_entity,
}  # fmt: skip
LABELS = {
    **{k: "update" for k in UPDATE}, **{k: "contradiction" for k in CONTRADICTION},
    "elaboration": "elaboration", "additional_fact": "elaboration", "restatement": "elaboration",
    "other_entity": "unrelated",
}  # fmt: skip
