"""Fill slot templates for a subject in a given wording (name, role, pronoun, first person) and language."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .lexicon import NAMES, PRONOUNS, USER
from .slots import Slot

EN_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
ZH_SMALL = ("零", "一", "两", "三", "四", "五", "六", "七", "八", "九", "十")


@dataclass(frozen=True)
class Subject:
    """Who or what a fact is about: a person (gender 'f'/'m', optional role) or an entity (gender 'it')."""

    name: str
    gender: str
    role: str = ""


def pick(rng: np.random.Generator, seq: tuple[str, ...] | list[str]) -> str:
    """One element of a non-empty sequence."""
    return seq[int(rng.integers(0, len(seq)))]


def count_word(lang: str, d: int) -> str:
    """A small count written as a word ("two", "两"), larger ones as digits."""
    if 0 < d <= 10:
        return EN_SMALL[d] if lang == "en" else ZH_SMALL[d]
    return str(d)


def capital(text: str) -> str:
    """Upper-case the first character (a no-op for Chinese)."""
    return text[:1].upper() + text[1:]


def bare(text: str) -> str:
    """The sentence without its final full stop (to continue it with more words)."""
    return text.rstrip("。.")


def forms(lang: str, subj: Subject, mode: str) -> dict[str, str]:
    """Subject, possessive and pronouns for one wording: name, role, name_role, pron or user."""
    he, his, him = PRONOUNS[lang][subj.gender]
    if mode == "user":
        noun = USER[lang]
        he, his, him = ("they", "their", "them") if lang == "en" else ("我", "我的", "我")
    elif mode == "pron":
        noun = he
    elif mode == "role":
        noun = subj.role or subj.name
    elif mode == "name_role" and subj.role and subj.gender != "it":
        noun = f"{subj.role} {subj.name}" if lang == "en" else f"{subj.role}{subj.name}"
    else:
        noun = subj.name
    if mode == "pron":
        poss = his
    elif lang == "en":
        poss = noun + ("'" if noun.endswith("s") else "'s")
    else:
        poss = noun + "的"
    return {"S": noun, "P": poss, "he": he, "his": his, "him": him}


def fill(
    lang: str,
    template: str,
    subj: Subject,
    mode: str = "name",
    v: str = "",
    o: str = "",
    d: str = "",
    embed: bool = False,
) -> str:
    """One sentence from a template; `embed` keeps an English start lower case to follow "that" or a cue."""
    text = template.format(v=v, o=o, d=d, **forms(lang, subj, mode))
    if lang != "en":
        return text
    if not embed:
        return capital(text)
    if template.startswith("{"):
        return text  # starts with a subject form, which carries its own case
    return text if text.startswith(("I ", "I'")) else text[:1].lower() + text[1:]


def people(lang: str, rng: np.random.Generator, n: int, exclude: tuple[str, ...] = ()) -> list[str]:
    """`n` distinct names of either gender, none of them in `exclude`."""
    pool = [x for g in ("f", "m") for x in NAMES[lang][g] if x not in exclude]
    idx = rng.choice(len(pool), size=n, replace=False)
    return [pool[int(i)] for i in idx]


def person(lang: str, rng: np.random.Generator, exclude: tuple[str, ...] = ()) -> Subject:
    """A random person (name and matching gender), none of `exclude`."""
    gender = pick(rng, ("f", "m"))
    return Subject(pick(rng, tuple(n for n in NAMES[lang][gender] if n not in exclude)), gender)


def value_pair(slot: Slot, rng: np.random.Generator) -> tuple[str, str]:
    """Two different values of a slot (old, new)."""
    pool = slot.pool()
    i, j = rng.choice(len(pool), size=2, replace=False)
    return pool[int(i)], pool[int(j)]
