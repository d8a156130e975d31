"""Named recall configurations for common kinds of memory: one word picks a measured set of `RecallConfig` weights.

Each recipe is the default with a few fields changed; its description says what it is for and where its
numbers come from (docs/benchmarks.md). `recall_recipe(name, **overrides)` returns a fresh, validated copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from psychoagent.memory.config.recall import RecallConfig

__all__ = ["RECALL_RECIPES", "RecallRecipe", "recall_recipe", "recipe_names"]

_CONVERSATION_OFF: dict[str, Any] = {
    "neighbour_dense_weight": 0.0,
    "neighbour_keyword_weight": 0.0,
    "reply_weight": 0.0,
    "session_weight": 0.0,
    "speaker_boost": 0.0,
}


@dataclass(frozen=True)
class RecallRecipe:
    """A named change of the default recall weights and what it is for."""

    name: str
    description: str
    changes: dict[str, Any] = field(default_factory=dict)

    def config(self, **overrides: Any) -> RecallConfig:
        """The default `RecallConfig` with this recipe's changes and then `overrides` applied (validated)."""
        return RecallConfig.model_validate({**self.changes, **overrides})


RECALL_RECIPES: dict[str, RecallRecipe] = {
    r.name: r
    for r in (
        RecallRecipe(
            "default",
            "hybrid dense + keyword recall with the conversation stages (session, neighbours, replies, speaker, "
            "dates, multi-hop entities): LoCoMo-dev any@5 0.803 / all@5 0.684; on the bilingual fixture a default "
            "`Memory` with e5 recalls 0.808 at 5 (docs/benchmarks.md, 'Recall recipes')",
        ),
        RecallRecipe(
            "documents",
            "notes, documents and agent events that are not turns of one conversation: units written close "
            "together are not read as one session, and no 'Name: text' speaker is looked for. LoCoMo-dev, a "
            "conversation, falls to any@5 0.679 / all@5 0.563 without these stages",
            dict(_CONVERSATION_OFF),
        ),
        RecallRecipe(
            "exact",
            "the exact cosine scan at every size: the same results as the default below ann_min_rows units, "
            "no approximate index above it (100k units: p95 about 14 ms instead of about 5 ms)",
            {"ann": "exact"},
        ),
        RecallRecipe(
            "dense",
            "embedding similarity alone (keyword weight 0): the dense baseline of ablations (bilingual fixture "
            "with e5: 0.731 against the default's 0.808)",
            {"dense_weight": 1.0},
        ),
        RecallRecipe(
            "keyword",
            "BM25 keyword scores alone (dense weight 0): the lexical baseline of ablations and a recall that "
            "does not depend on the embedder (bilingual fixture: 0.517, serial numbers 0.950)",
            {"dense_weight": 0.0, "keyword_signal": "bm25"},
        ),
        RecallRecipe(
            "stateless",
            "the default weights, but a recall changes nothing: access counts are neither kept nor used, so the "
            "same question gives the same answer however often it is asked (evaluation, replays)",
            {"track_access": False, "access_weight": 0.0},
        ),
    )
}


def recipe_names() -> list[str]:
    """The recipe names, default first."""
    return list(RECALL_RECIPES)


def recall_recipe(name: str, **overrides: Any) -> RecallConfig:
    """A fresh `RecallConfig` of recipe `name` with `overrides` applied; ValueError naming the known recipes when
    `name` is not one of them (pydantic's ValidationError when an override is not a valid setting)."""
    recipe = RECALL_RECIPES.get(name)
    if recipe is None:
        raise ValueError(f"unknown recall recipe {name!r}; choose from: {', '.join(RECALL_RECIPES)}")
    return recipe.config(**overrides)
