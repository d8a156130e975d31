"""Content sub-query: a question about a speaker asked again without the speaker.

"What activities does Melanie partake in?" shares "Melanie" with every turn Melanie spoke, so the name dominates
both the query embedding and the keyword terms. Asked again as its content words alone ("activities partake"), the
question finds the turns that talk about the thing; the two rankings are fused. The speakers come from the
namespace's own transcript turns ("Name: text"), so any stored conversation qualifies, not one benchmark's format.
"""

from __future__ import annotations

import re

import numpy as np

from psychoagent.memory.index.conversation import ALIAS_MIN_CHARS, ConversationIndex
from psychoagent.text import STOPWORDS, ZH_STOPWORDS, tokens


def speaker_words(conversation: ConversationIndex, codes: list[int]) -> set[str]:
    """Lower-case words of the named speakers' names (the tokens a question uses to name them)."""
    return {w for code in codes for w in tokens(conversation.speaker_names[code])}


def content_query(query: str, conversation: ConversationIndex) -> str | None:
    """The query's content words without the speakers it names and without function words; None when the query
    names no speaker or nothing is left."""
    codes = conversation.named_speakers(query)
    if not codes:
        return None
    names = speaker_words(conversation, codes)
    kept = []
    for word in tokens(query):
        if word in STOPWORDS or word in ZH_STOPWORDS or word in names:
            continue
        # a prefix alias of a name ("Mel" for Melanie), as `named_speakers` reads it
        if len(word) >= ALIAS_MIN_CHARS and any(n.startswith(word) for n in names):
            continue
        if re.fullmatch(r"\W+", word) or (word.isascii() and len(word) < 2):  # punctuation, the "s" of "'s"
            continue
        kept.append(word)
    return " ".join(kept) if kept else None


def fuse_content(main: np.ndarray, content: np.ndarray, weight: float) -> np.ndarray:
    """Base relevance from the full query's and the content query's fused scores: (1 - w) x main + w x content,
    each already in [0, 1]."""
    return (1.0 - weight) * main + weight * content
