"""Model-free appraisal in English and Chinese: continuous valence and arousal, conflict from explicit rules.

Valence and arousal scores come from linear heads fitted on EmoBank (`head.py`) over word-level features
(`features.py`: VADER's word norms, task and arousal words, the Chinese rule lexicon) and, when a
multilingual-e5-small passage vector is at hand, that vector: a standalone appraiser embeds the text itself, a
`Memory` passes the vector it computes anyway, or says which embedder it has, so that a memory with another
embedder uses the lexical head and never pays for an e5 embedding. Conflict comes from goals, stored memories
and reversal markers, as rules a reader can check.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from psychoagent.affect import lexicon as lx
from psychoagent.affect.config import AffectConfig
from psychoagent.affect.features import EN_WORD as _EN_WORD
from psychoagent.affect.features import TextFeatures
from psychoagent.affect.features import cut as _cut
from psychoagent.affect.head import AffectHeads, default_heads
from psychoagent.affect.outcome import OutcomeEvent, appraise_outcome
from psychoagent.affect.scheme import LabelScheme, apply_rules, get_scheme
from psychoagent.affect.slots import extract_slots
from psychoagent.types import SCORE_BANDS, Affect

_EN_STOP = frozenset(
    "the a an and or to of in on for with from by at is are was were be been keep make ensure user users "
    "total this that it its as under over than less more within about their our your my we i you".split()
)
_ZH_STOP = frozenset("的 了 是 在 和 与 把 将 用户 我们 我 要 把 从 到 元 以内 控制".split())


def _content_words(text: str) -> set[str]:
    if lx.has_cjk(text):
        return {w for w in _cut(text) if len(w) >= 2 and w not in _ZH_STOP and not w.isdigit()}
    return {w.lower() for w in _EN_WORD.findall(text) if len(w) >= 3 and w.lower() not in _EN_STOP}


def _side_pattern(words: tuple[str, ...]) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
    latin = [w for w in words if not lx.has_cjk(w)]
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in latin) + r")\b", re.I) if latin else None
    return pattern, tuple(w for w in words if lx.has_cjk(w))


_OPPOSITE_PATTERNS = [(_side_pattern(a), _side_pattern(b)) for a, b in lx.OPPOSITES]


def _first(text: str, side: tuple[re.Pattern[str] | None, tuple[str, ...]]) -> str | None:
    pattern, cjk = side
    m = pattern.search(text) if pattern is not None else None
    if m:
        return m.group(1).lower()
    return next((w for w in cjk if w in text), None)


def opposite_words(text: str) -> list[tuple[str | None, str | None]]:
    """Per opposite pair, the first word of each side the text uses (None where it uses none)."""
    return [(_first(text, a), _first(text, b)) for a, b in _OPPOSITE_PATTERNS]


@lru_cache(maxsize=4096)
def _goal_info(goal: str) -> tuple[list[tuple[str, float]], frozenset[str], frozenset[str], list[Any]]:
    """Constraints, content words, slot attributes and opposite-preference words of a goal (goals repeat)."""
    return (
        lx.constraints(goal),
        frozenset(_content_words(goal)),
        frozenset(s.attribute for s in extract_slots(goal)),
        opposite_words(goal),
    )


class _Conflict:
    """One detected conflict: intensity, both parties, one-sentence reason."""

    def __init__(self, intensity: int, parties: list[str], reason: str, kind: str) -> None:
        self.intensity, self.parties, self.reason, self.kind = intensity, parties, reason, kind


class HeuristicAppraiser:
    """Appraises text (or an `OutcomeEvent`) without a language model; deterministic.

    `context` may be a string or a mapping with ``memories`` (MemoryUnits or texts, for slot contradictions),
    ``embedder`` (the name of the embedder of the caller's memory) and ``vector`` (that embedder's passage vector
    of the text). The combined head is used when the vector comes from the model it was fitted on; a mapping that
    names another embedder gets the lexical head; without ``embedder`` the appraiser embeds the text itself (once
    per text, lazily) unless `HeuristicConfig.embed_missing` is off.
    """

    name = "heuristic"

    def __init__(self, config: AffectConfig | None = None, scheme: str | LabelScheme | None = None) -> None:
        self.config = config or AffectConfig()
        self.scheme = get_scheme(scheme)
        self.features = TextFeatures(self.config.heuristic, self.scheme)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._embedder: Any = None

    @property
    def heads(self) -> AffectHeads:
        """The fitted heads shipped with the package."""
        return default_heads()

    @property
    def vector_embedder(self) -> str:
        """Name of the embedder whose passage vectors the combined head takes (a Memory passes those)."""
        return self.heads.embedder

    # -- valence and arousal scores -------------------------------------------------------------------------
    def sentiment(self, text: str) -> float:
        """Signed lexicon sentiment score in [-1, 1] (one feature of the heads)."""
        return self.features.sentiment(text)

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed texts in batches ahead of `appraise` calls without a vector (standalone batch use); keeps the
        first `HeuristicConfig.vector_cache` of them."""
        todo = [t for t in dict.fromkeys(t.strip() for t in texts) if t and t not in self._vectors]
        todo = todo[: self.config.heuristic.vector_cache]
        for start in range(0, len(todo), 64):
            chunk = todo[start : start + 64]
            for text, vec in zip(chunk, self._embed(chunk), strict=True):
                self._remember(text, vec)

    def _embed(self, texts: list[str]) -> np.ndarray:
        if self._embedder is None:
            from psychoagent.embed import get_embedder

            self._embedder = get_embedder("e5")
        return np.asarray(self._embedder.embed_documents(texts), dtype=np.float64)

    def _remember(self, text: str, vec: np.ndarray) -> None:
        self._vectors[text] = vec
        while len(self._vectors) > self.config.heuristic.vector_cache:
            self._vectors.popitem(last=False)

    def _vector(self, text: str, context: Any) -> np.ndarray | None:
        """The e5 vector to use: the caller's if compatible, else (standalone only) computed here, else None."""
        if isinstance(context, Mapping) and "embedder" in context:
            vec = context.get("vector")
            return np.asarray(vec, dtype=np.float64) if self.heads.accepts(context["embedder"], vec) else None
        if not self.config.heuristic.embed_missing:
            return None
        vec = self._vectors.get(text)
        if vec is None:
            vec = self._embed([text])[0]
            self._remember(text, vec)
        else:
            self._vectors.move_to_end(text)
        return vec

    def scores(self, text: str, context: Any = None) -> tuple[float, float, str, float]:
        """(valence -2..2, arousal 1..3, head used, lexicon sentiment) of a text, before goals and rules."""
        dense, sentiment, words = self.features.vector(text)
        vector = self._vector(text, context)
        head = self.heads.lexical if vector is None else self.heads.combined
        valence, arousal = head.predict(dense, words, vector)
        return float(valence), float(arousal), head.name, sentiment

    # -- conflict -------------------------------------------------------------------------------------------
    def _goal_conflicts(self, text: str, goals: Sequence[str]) -> list[_Conflict]:
        cfg = self.config.heuristic
        found: list[_Conflict] = []
        if not goals:
            return found
        event_words = _content_words(text)
        moved = lx.change(text)
        values = [moved[1]] if moved else lx.numbers(text)
        event_attrs = {s.attribute for s in extract_slots(text)}
        event_opposites = opposite_words(text) if goals else []
        new_side = f"new instruction: {text.strip().rstrip('.。')}"
        for goal in goals:
            goal_side = f"goal: {goal.strip().rstrip('.。')}"
            goal_constraints, goal_words, goal_attrs, goal_opposites = _goal_info(goal)
            overlap = event_words & goal_words
            on_topic = bool(overlap) or bool(goal_attrs & event_attrs)
            for kind, bound in goal_constraints:
                if not on_topic or not values:
                    continue
                bad = [v for v in values if (v > bound if kind == "max" else v < bound)]
                if not bad:
                    continue
                value = max(bad) if kind == "max" else min(bad)
                ratio = abs(value - bound) / max(abs(bound), 1e-9)
                level = 4 if ratio >= cfg.goal_violation_strong_ratio else cfg.goal_violation_intensity
                word = (
                    "exceeds the goal's limit of" if kind == "max" else "falls short of the goal's minimum of"
                )
                found.append(
                    _Conflict(
                        level, [goal_side, new_side], f"{value:g} {word} {bound:g} (by {ratio:.0%}).", "goal"
                    )
                )
            for (goal_a, goal_b), (event_a, event_b) in zip(goal_opposites, event_opposites, strict=True):
                for g, e, same in ((goal_a, event_b, event_a), (goal_b, event_a, event_b)):
                    if g and e and not same:
                        found.append(
                            _Conflict(
                                cfg.preference_intensity,
                                [goal_side, new_side],
                                f"The event asks for '{e}' where the goal asks for '{g}'.",
                                "goal",
                            )
                        )
            negation = lx.GOAL_NEGATION_ZH if lx.has_cjk(text) else lx.GOAL_NEGATION_EN
            m = negation.search(text)
            if m and overlap:
                found.append(
                    _Conflict(
                        cfg.goal_negation_intensity,
                        [goal_side, new_side],
                        f"The event negates the goal ('{m.group(0)}' with '{sorted(overlap)[0]}').",
                        "goal",
                    )
                )
        return found

    def _slot_conflicts(self, text: str, context: Any) -> list[_Conflict]:
        memories = context.get("memories", ()) if isinstance(context, Mapping) else ()
        if not memories:
            return []
        mine = extract_slots(text)
        found: list[_Conflict] = []
        for memory in memories:
            content = memory if isinstance(memory, str) else getattr(memory, "content", str(memory))
            for old in extract_slots(content):
                for new in mine:
                    if new.contradicts(old):
                        found.append(
                            _Conflict(
                                self.config.heuristic.slot_intensity,
                                [f"memory: {content.strip()}", f"new: {text.strip()}"],
                                f"The event gives {new.attribute} = {new.value} where a stored memory says "
                                f"{old.value}.",
                                "slot",
                            )
                        )
        return found

    # -- entry point ----------------------------------------------------------------------------------------
    def appraise(self, event: Any, goals: Sequence[str] = (), context: Any = None) -> Affect:
        """Affect of an event text (or structured outcome) against goals and, if given, stored memories."""
        if isinstance(event, OutcomeEvent):
            return appraise_outcome(event, self.config.outcome)
        if isinstance(event, Mapping) and {"expected", "actual"} <= set(event):
            return appraise_outcome(OutcomeEvent.model_validate(event), self.config.outcome)
        if not isinstance(event, str) or not event.strip():
            raise ValueError("event must be a non-empty string or an OutcomeEvent")
        if isinstance(goals, str):
            goals = [goals]
        cfg = self.config.heuristic
        text = event.strip()
        valence, arousal, head, score = self.scores(text, context)
        conflicts = self._goal_conflicts(text, goals) + self._slot_conflicts(text, context)
        reversal = (lx.REVERSAL_ZH if lx.has_cjk(text) else lx.REVERSAL_EN).search(text)
        conflict, parties, why = 0, [], ""
        if conflicts:
            best = max(conflicts, key=lambda c: c.intensity)
            conflict, parties, why = best.intensity, best.parties, best.reason
            if reversal:
                conflict = min(4, conflict + cfg.reversal_bonus)
        elif reversal:
            conflict, why = (
                cfg.reversal_intensity,
                f"The reversal marker '{reversal.group(0)}' takes something back.",
            )
            parties = ["earlier statement", f"new statement: {text.rstrip('.。')}"]
        cues = self.features.arousal_cues(text, score)
        if conflict >= 3:
            cues.append("goal conflict")
            arousal = min(3.0, max(arousal + cfg.conflict_arousal, SCORE_BANDS.arousal[0]))
            if SCORE_BANDS.valence_label(valence) > cfg.conflict_valence_cap:
                valence = float(cfg.conflict_valence_cap)
        label = SCORE_BANDS.valence_label(valence)
        tone = "positive" if label > 0 else "negative" if label < 0 else "neutral"
        reason = why or (
            f"{tone.capitalize()} wording (valence {valence:+.2f}, arousal {arousal:.2f}, {head} head) and no "
            "conflict with goals or memories."
        )
        if cues and not why:
            reason = reason[:-1] + f"; arousal cues: {', '.join(dict.fromkeys(cues))}."
        affect = Affect(
            valence_score=round(valence, 3),
            arousal_score=round(arousal, 3),
            conflict_intensity=conflict,
            conflict_parties=parties,
            reason=reason,
        )
        return apply_rules(text, affect, self.scheme.rules)
