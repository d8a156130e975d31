"""Assemble labelled scenarios (old fact, distractors, new fact, distractors, question) and split them."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import asdict, dataclass

import numpy as np

from .families import COMPATIBLE, CONTRADICTION, LABELS, UPDATE, Ctx, Family
from .lexicon import NAMES, ROLES
from .render import Subject, fill, pick, value_pair
from .slots import Slot, load_slots

SLOTS: dict[str, tuple[Slot, ...]] = {lang: load_slots(lang) for lang in ("en", "zh")}
DOMAINS: tuple[str, ...] = tuple(dict.fromkeys(s.domain for s in SLOTS["en"]))
N_DISTRACTORS = 6  # before and after the new fact
HELD_OUT_SHARE = 0.3
SPLIT_SALT = "conflict-gen-split-v1"


@dataclass
class Item:
    """One labelled scenario; `answer_new` is what the question should be answered with after the new fact."""

    id: str
    lang: str
    domain: str
    slot: str
    family: str
    label: str  # update | contradiction | elaboration | unrelated
    subject: str
    old: str
    new: str
    question: str
    answer_new: str
    answer_old: str
    distractors_before: list[str]
    distractors_after: list[str]
    t_old: str
    t_new: str
    t_before: list[str]
    t_after: list[str]

    @property
    def conflicting(self) -> bool:
        """Whether the pair must be flagged (an update or a contradiction)."""
        return self.label in ("update", "contradiction")

    def timeline(self) -> list[tuple[str, str]]:
        """(text, ISO timestamp) in the order the texts are stored."""
        return [
            (self.old, self.t_old),
            *zip(self.distractors_before, self.t_before, strict=True),
            (self.new, self.t_new),
            *zip(self.distractors_after, self.t_after, strict=True),
        ]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


def _subject(lang: str, slot: Slot, rng: np.random.Generator, avoid: str = "") -> Subject:
    """A random person with a role, or one of the slot's organisations with its other wording."""
    if not slot.personal:
        names = [e for e in slot.entities if e[0] != avoid]
        name, alias = names[int(rng.integers(0, len(names)))]
        return Subject(name, "it", alias)
    gender = pick(rng, ("f", "m"))
    name = pick(rng, tuple(n for n in NAMES[lang][gender] if n != avoid))
    roles = tuple(r for r, g in ROLES[lang] if g in ("", gender))
    return Subject(name, gender, pick(rng, roles))


def _distractor_pool(lang: str, rng: np.random.Generator, per_slot: int = 8) -> list[tuple[str, str]]:
    """(domain, sentence) facts about other people and things, shared by all scenarios of a language."""
    pool = []
    for slot in SLOTS[lang]:
        for _ in range(per_slot):
            subj = _subject(lang, slot, rng)
            pool.append((slot.domain, fill(lang, pick(rng, slot.fact), subj, v=pick(rng, slot.pool()))))
    return pool


def _stamp(t: dt.datetime) -> str:
    """ISO 8601 in UTC, as `observe(timestamp=...)` accepts it."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _distractors(
    lang: str, slot: Slot, subj: Subject, pool: list[tuple[str, str]], rng: np.random.Generator
) -> list[str]:
    """Twelve facts from other domains; for a person, one of them is about the same person."""
    others = [text for dom, text in pool if dom != slot.domain]
    idx = rng.choice(len(others), size=2 * N_DISTRACTORS, replace=False)
    chosen = [others[int(i)] for i in idx]
    if slot.personal:
        near = [s for s in SLOTS[lang] if s.domain != slot.domain and s.personal]
        extra = near[int(rng.integers(0, len(near)))]
        chosen[int(rng.integers(0, len(chosen)))] = fill(
            lang, pick(rng, extra.fact), subj, v=pick(rng, extra.pool())
        )
    return chosen


def _scenario(
    uid: str,
    lang: str,
    slot: Slot,
    family: str,
    fn: Family,
    pool: list[tuple[str, str]],
    rng: np.random.Generator,
) -> Item | None:
    """One scenario of `family` for `slot`, or None when the family does not apply to the slot."""
    siblings = tuple(s for s in SLOTS[lang] if s.domain == slot.domain and s.key != slot.key)
    subj = _subject(lang, slot, rng)
    old_v, new_v = value_pair(slot, rng)
    ctx = Ctx(lang, slot, subj, old_v, new_v, rng, siblings)
    triple = fn(ctx)
    if triple is None:
        return None
    old, new, question = triple
    distractors = _distractors(lang, slot, subj, pool, rng)
    start = dt.datetime(2024, 1, 8, 9) + dt.timedelta(
        days=int(rng.integers(0, 600)), hours=int(rng.integers(0, 9))
    )
    gap = dt.timedelta(days=int(rng.integers(2, 40)))
    step = gap / (N_DISTRACTORS + 1)
    t_new = start + gap
    return Item(
        id=uid, lang=lang, domain=slot.domain, slot=slot.key, family=family, label=LABELS[family],
        subject=subj.name, old=old, new=new, question=question, answer_new=ctx.new, answer_old=ctx.old,
        distractors_before=distractors[:N_DISTRACTORS], distractors_after=distractors[N_DISTRACTORS:],
        t_old=_stamp(start), t_new=_stamp(t_new),
        t_before=[_stamp(start + step * (k + 1)) for k in range(N_DISTRACTORS)],
        t_after=[_stamp(t_new + dt.timedelta(hours=k + 1)) for k in range(N_DISTRACTORS)],
    )  # fmt: skip


def generate(
    seed: int = 0, per_change: int = 2, per_contradiction: int = 2, per_compatible: int = 4
) -> list[Item]:
    """All scenarios for `seed`: every (language, slot, family) combination that applies, deterministically."""
    rng = np.random.default_rng(seed)
    items: list[Item] = []
    plan = [(UPDATE, per_change), (CONTRADICTION, per_contradiction), (COMPATIBLE, per_compatible)]
    for lang in ("en", "zh"):
        pool = _distractor_pool(lang, rng)
        for slot in SLOTS[lang]:
            for families, n in plan:
                for family, fn in families.items():
                    for k in range(n):
                        uid = f"{lang}-{slot.domain}-{slot.key}-{family}-{k}"
                        item = _scenario(uid, lang, slot, family, fn, pool, rng)
                        if item is not None:
                            items.append(item)
    return items


def _held_out(names: list[str] | tuple[str, ...]) -> set[str]:
    """The ~30 % of `names` whose salted hash sorts first: fixed, independent of the seed and of any result."""
    ranked = sorted(names, key=lambda n: hashlib.sha256(f"{SPLIT_SALT}:{n}".encode()).hexdigest())
    return set(ranked[: max(1, round(HELD_OUT_SHARE * len(ranked)))])


HELD_OUT_FAMILIES: frozenset[str] = frozenset(
    _held_out(list(UPDATE)) | _held_out(list(CONTRADICTION)) | _held_out(list(COMPATIBLE))
)
HELD_OUT_DOMAINS: frozenset[str] = frozenset(_held_out(DOMAINS))


def split(items: list[Item]) -> tuple[list[Item], list[Item]]:
    """(dev, test): dev has neither a held-out family nor a held-out domain; test has either."""
    dev = [i for i in items if i.family not in HELD_OUT_FAMILIES and i.domain not in HELD_OUT_DOMAINS]
    test = [i for i in items if i.family in HELD_OUT_FAMILIES or i.domain in HELD_OUT_DOMAINS]
    return dev, test
