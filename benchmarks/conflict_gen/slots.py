"""One attribute of one domain (a slot) with its value pool and the sentence templates that state or change it.

Placeholders: {S} subject, {P} its possessive ("Anna's", "安娜的"), {he}/{his}/{him} its pronouns, {v} the
value the sentence states, {o} the earlier value, {d} the size of a relative change.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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


def slot(domain: str, key: str, **kw: object) -> Slot:
    """Build a slot; sequences given as lists or tuples are stored as tuples."""
    args = {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}
    return Slot(domain=domain, key=key, **args)  # type: ignore[arg-type]
