"""One attribute of one domain (a slot) with its value pool and the sentence templates that state or change it;
the slots of each language are a table in data/slots_LANG.yaml, read by `load_slots`.

Placeholders: {S} subject, {P} its possessive ("Anna's", "安娜的"), {he}/{his}/{him} its pronouns, {v} the
value the sentence states, {o} the earlier value, {d} the size of a relative change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).with_name("data")
"""The folder of the slot tables, one YAML file a language."""


@dataclass(frozen=True)
class Slot:
    """An attribute that can hold one value at a time, e.g. the city someone lives in."""

    domain: str
    key: str
    values: tuple[str, ...] = ()
    num: tuple[int, int, int] | None = None  # (low, high, step) for numeric slots
    fact: tuple[str, ...] = ()  # states the value; several wordings
    change: tuple[str, ...] = ()  # states that the value changed to {v} (change verb, no cue word)
    neg: tuple[str, ...] = ()  # negates {o} and states {v}
    pas: tuple[str, ...] = ()  # passive voice change
    elab: tuple[str, ...] = ()  # compatible detail about {o}
    q: tuple[str, ...] = ()  # asks for the current value
    first: tuple[str, ...] = ()  # first-person statements of {v} (English; Chinese uses fact with 我)
    first_change: tuple[str, ...] = ()  # first-person change statements
    up: tuple[str, ...] = ()  # relative increase by {d} to {v}
    down: tuple[str, ...] = ()  # relative decrease by {d} to {v}
    entities: tuple[tuple[str, str], ...] = ()  # (name, other wording) when the subject is not a person
    deltas: tuple[int, ...] = field(default=(1, 2, 3))

    @property
    def numeric(self) -> bool:
        """Whether values are integers drawn from `num` (and relative changes apply)."""
        return self.num is not None

    @property
    def personal(self) -> bool:
        """Whether the subject is a person (names, roles, pronouns and first person apply)."""
        return not self.entities

    def pool(self) -> list[str]:
        """All values the slot can take, as text."""
        if self.num is not None:
            lo, hi, step = self.num
            return [str(x) for x in range(lo, hi + 1, step)]
        return list(self.values)


def _tuples(value: Any) -> Any:
    """Lists, nested ones included, as tuples: a slot is frozen and its pools are compared and hashed."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list | tuple) else value


def slot(domain: str, key: str, **kw: object) -> Slot:
    """Build a slot; sequences given as lists or tuples are stored as tuples."""
    args = {k: _tuples(v) for k, v in kw.items()}
    return Slot(domain=domain, key=key, **args)


def load_slots(lang: str) -> tuple[Slot, ...]:
    """The slots of one language ("en", "zh") from data/slots_LANG.yaml, in the table's order."""
    table = yaml.safe_load((DATA / f"slots_{lang}.yaml").read_text(encoding="utf-8"))
    return tuple(slot(**row) for row in table["slots"])
