"""Model-free appraisal in English and Chinese: valence, arousal and conflict from lexicons and explicit rules.

English valence is VADER's compound score (Hutto & Gilbert 2014; FACTS.md: r = 0.46 with human valence) plus task
outcome words. Chinese valence is a small rule lexicon with negation and intensifiers, blended with snownlp's
review-trained probability at a low weight: snownlp is the only maintained Chinese sentiment model that installs
without pinning old numpy (cntext does), but it is coarse, so the explicit rules dominate.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from psychoagent.affect import lexicon as lx
from psychoagent.affect.config import AffectConfig
from psychoagent.affect.outcome import OutcomeEvent, appraise_outcome
from psychoagent.affect.scheme import LabelScheme, apply_rules, get_scheme
from psychoagent.affect.slots import extract_slots
from psychoagent.types import Affect

_EN_WORD = re.compile(r"[A-Za-z][\w']*")
_EN_NEGATORS = frozenset("not no never n't cannot without".split())
_EN_STOP = frozenset(
    "the a an and or to of in on for with from by at is are was were be been keep make ensure user users "
    "total this that it its as under over than less more within about their our your my we i you".split()
)
_ZH_STOP = frozenset("的 了 是 在 和 与 把 将 用户 我们 我 要 把 从 到 元 以内 控制".split())


@lru_cache(maxsize=1)
def _vader() -> Any:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


@lru_cache(maxsize=1)
def _snownlp_model() -> Any:
    from snownlp import normal, sentiment

    return sentiment.classifier.classifier, normal.filter_stop


def _snownlp(words: list[str]) -> float:
    """snownlp's Naive Bayes positive probability over jieba words (its own segmenter is 10x slower)."""
    bayes, filter_stop = _snownlp_model()
    label, prob = bayes.classify(filter_stop(words))
    return float(prob if label == "pos" else 1.0 - prob)


def _cut(text: str) -> list[str]:
    from psychoagent.memory.text import _jieba

    return [w for w in _jieba().lcut(text) if w.strip()]


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
    """Appraises text (or an `OutcomeEvent`) without a model; deterministic and fast.

    `context` may be a string or a mapping with ``memories`` (MemoryUnits or texts) used for slot contradictions.
    """

    name = "heuristic"

    def __init__(self, config: AffectConfig | None = None, scheme: str | LabelScheme | None = None) -> None:
        self.config = config or AffectConfig()
        self.scheme = get_scheme(scheme)

    # -- valence --------------------------------------------------------------------------------------------
    def _score_en(self, text: str) -> float:
        cfg = self.config.heuristic
        compound = float(_vader().polarity_scores(text)["compound"])
        words = [w.lower() for w in _EN_WORD.findall(text)]
        extra = 0.0
        pos = lx.SUCCESS_EN | {w for w in self.scheme.positive_words if not lx.has_cjk(w)}
        neg = lx.FAILURE_EN | {w for w in self.scheme.negative_words if not lx.has_cjk(w)}
        for i, word in enumerate(words):
            sign = 1.0 if word in pos else -1.0 if word in neg else 0.0
            if sign and any(w in _EN_NEGATORS or w.endswith("n't") for w in words[max(0, i - 3) : i]):
                sign = -sign
            extra += sign
        return max(-1.0, min(1.0, compound + cfg.task_word_weight * extra))

    def _score_zh(self, text: str) -> float:
        cfg = self.config.heuristic
        tokens = _cut(text)
        pos = lx.SUCCESS_ZH + tuple(w for w in self.scheme.positive_words if lx.has_cjk(w))
        neg = lx.FAILURE_ZH + tuple(w for w in self.scheme.negative_words if lx.has_cjk(w))
        total = 0.0
        for i, tok in enumerate(tokens):
            sign = 1.0 if any(w in tok for w in pos) else -1.0 if any(w in tok for w in neg) else 0.0
            if not sign:
                continue
            window = tokens[max(0, i - cfg.negation_window) : i]
            if any(t in lx.NEGATORS_ZH for t in window):
                sign = -sign
            if i > 0 and tokens[i - 1] in lx.INTENSIFIERS_ZH:
                sign *= cfg.intensifier_factor
            total += sign
        score = cfg.task_word_weight * total
        if cfg.zh_backend == "snownlp" and cfg.snownlp_weight > 0:
            score += cfg.snownlp_weight * (2.0 * _snownlp(tokens) - 1.0)
        return max(-1.0, min(1.0, score))

    def sentiment(self, text: str) -> float:
        """Signed sentiment score in [-1, 1]."""
        return self._score_zh(text) if lx.has_cjk(text) else self._score_en(text)

    def _valence(self, score: float) -> int:
        low, high = self.config.heuristic.valence_bands
        magnitude = 2 if abs(score) >= high else 1 if abs(score) >= low else 0
        return magnitude if score > 0 else -magnitude

    # -- arousal --------------------------------------------------------------------------------------------
    def _arousal_points(self, text: str, score: float) -> tuple[int, list[str]]:
        cfg = self.config.heuristic
        cues: list[str] = []
        if lx.has_cjk(text):
            hits = sum(1 for w in (*lx.AROUSAL_ZH, *self.scheme.arousal_words) if w in text)
        else:
            words = {w.lower() for w in _EN_WORD.findall(text)}
            hits = len(words & (lx.AROUSAL_EN | set(self.scheme.arousal_words)))
            if any(len(w) >= 3 and w.isupper() for w in _EN_WORD.findall(text)):
                cues.append("capitals")
        if hits:
            cues += ["intensity words"] * min(2, hits)
        if "!" in text or "！" in text:
            cues.append("exclamation")
        if abs(score) >= cfg.arousal_sentiment:
            cues.append("strong sentiment")
        moved = lx.change(text)
        if moved and moved[0] and abs(moved[1] - moved[0]) / abs(moved[0]) >= cfg.arousal_change_ratio:
            cues.append("large change")
        return len(cues), cues

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
        score = self.sentiment(text)
        valence = self._valence(score)
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
        points, cues = self._arousal_points(text, score)
        if conflict >= 3:
            points += 1
            cues.append("goal conflict")
            valence = min(valence, cfg.conflict_valence_cap)
        arousal = 3 if points >= 3 else 2 if points >= 1 else 1
        tone = "positive" if valence > 0 else "negative" if valence < 0 else "neutral"
        reason = (
            why or f"{tone.capitalize()} wording (score {score:+.2f}) and no conflict with goals or memories."
        )
        if cues and not why:
            reason = reason[:-1] + f"; arousal cues: {', '.join(dict.fromkeys(cues))}."
        affect = Affect(
            valence=valence,
            arousal=arousal,
            conflict_intensity=conflict,
            conflict_parties=parties,
            reason=reason,
        )
        return apply_rules(text, affect, self.scheme.rules)
