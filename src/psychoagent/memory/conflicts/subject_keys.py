"""Whether two facts share a subject key, read from their analyses without building the key sets.

`facts.subjects` gives a sentence's keys (its entities, '<self>', '#number', '@time'). The currency stage asks, for
each pair of recalled facts it may score, whether the two key sets meet; a key both analyses already hold in common
answers that without formatting every number of both texts into a key and caching the set.
"""

from __future__ import annotations

from psychoagent.memory.conflicts.facts import analyse, subjects


def share_subject(a: str, b: str) -> bool:
    """`bool(subjects(a) & subjects(b))`, exactly: a shared entity, time or non-zero number, or both naming the
    speaker, settles it (each is one key of both sets); else the key sets are compared (a zero can be written '-0',
    two numbers can share a key; an entity could look like another kind of key)."""
    if not a or not b:
        return False
    va, vb = analyse(a), analyse(b)
    if (va.self_ref and vb.self_ref) or not va.times.isdisjoint(vb.times):
        return True
    if not va.entities.isdisjoint(vb.entities) or any(x != 0 for x in va.numbers & vb.numbers):
        return True
    return bool(subjects(a) & subjects(b))
