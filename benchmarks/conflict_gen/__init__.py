"""Seeded generator of labelled fact pairs (update, contradiction, elaboration, unrelated) in English and Chinese.

No language model is involved: templates per domain and phrasing family, filled with varied people, values and
objects. `generate(seed)` builds every scenario; `split(items)` holds out ~30 % of the phrasing families and
~30 % of the domains, so a detector tuned on dev meets both unseen wordings and unseen topics on test.
"""

from .build import DOMAINS, HELD_OUT_DOMAINS, HELD_OUT_FAMILIES, SLOTS, Item, generate, split
from .families import COMPATIBLE, CONTRADICTION, LABELS, UPDATE

__all__ = [
    "COMPATIBLE",
    "CONTRADICTION",
    "DOMAINS",
    "HELD_OUT_DOMAINS",
    "HELD_OUT_FAMILIES",
    "LABELS",
    "SLOTS",
    "UPDATE",
    "Item",
    "generate",
    "split",
]
