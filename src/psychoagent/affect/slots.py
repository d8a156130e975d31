"""Slot extraction: (entity, attribute, value) triples a sentence states, so contradictions can be found by key.

Two memories contradict when they give the same entity and attribute different values ("the user's budget is
2000" vs "the user raised the budget to 3000"). Extraction is rule-based and deliberately conservative: a value
must follow the attribute mention (or be the target of a 'from X to Y' change), so a number merely near an
attribute word is not read as its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from psychoagent.affect.lexicon import NUMBER, change, has_cjk, to_number
from psychoagent.text import TEXT_CACHE

# canonical attribute -> (English regex alternatives, Chinese words). Longer phrases first.
ATTRIBUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "budget": (r"budget", ("预算",)),
    "price": (r"price|cost|fee", ("价格", "价钱", "售价", "费用", "报价")),
    "salary": (r"salary|wage", ("工资", "薪水", "薪资", "月薪")),
    "rent": (r"rent", ("房租", "租金")),
    "deadline": (r"deadline|due date", ("截止日期", "截止时间", "截止", "期限", "交付日期")),
    "meeting": (r"meeting|appointment", ("会议", "会面", "例会", "约会")),
    "flight": (r"flight", ("航班", "机票")),
    "trip": (r"business trip|trip", ("出差", "旅行")),
    "residence": (
        r"lives in|live in|living in|moved to|moves to|relocated to|is based in|address",
        ("住在", "搬到", "搬去", "住址", "定居在"),
    ),
    "colour": (r"favou?rite colou?r", ("最喜欢的颜色", "喜欢的颜色")),
    "language": (r"preferred language|working language", ("首选语言", "工作语言")),
    "headcount": (r"team size|headcount|number of (?:guests|people|participants)", ("人数", "参加人数")),
    "quantity": (r"order quantity|quantity", ("数量", "订购数量")),
    "delivery": (r"delivery date|delivery address|shipping address", ("送货地址", "配送地址", "发货日期")),
    "phone": (r"phone number", ("电话号码", "手机号")),
    "hotel": (r"hotel", ("酒店",)),
    "restaurant": (r"restaurant", ("餐厅", "饭店")),
    "vendor": (r"vendor|supplier", ("供应商",)),
    "target": (r"sales target|target", ("销售目标", "目标值")),
}
_MAX_VALUE_DISTANCE = 8  # words between an attribute and its numeric value
_OBJECT_ATTRS = {"residence"}
_NUMERIC_ATTRS = {
    "budget",
    "price",
    "salary",
    "rent",
    "headcount",
    "quantity",
    "target",
}  # the value follows the pattern directly ("moved to Berlin")

_EN_PATTERNS = [(name, re.compile(rf"\b(?:{en})s?\b", re.I)) for name, (en, _) in ATTRIBUTES.items()]
_ANY_EN = re.compile(r"\b(?:" + "|".join(f"(?:{en})" for en, _ in ATTRIBUTES.values()) + r")s?\b", re.I)
"""Matches where some pattern of `_EN_PATTERNS` matches: most sentences name no attribute, one search skips them."""


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern (a "|" inside parentheses does not split)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(pattern):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    return [*parts, pattern[start:]]


def _literal_start(alternative: str) -> str:
    """The literal text every match of an alternative starts with ("favou?rite" -> "favo")."""
    head = re.match(r"[a-z ]*", alternative).group()  # type: ignore[union-attr]
    return head[:-1] if alternative[len(head) : len(head) + 1] == "?" else head


_EN_STARTS = re.compile(
    "|".join(re.escape(_literal_start(alt)) for en, _ in ATTRIBUTES.values() for alt in _alternatives(en))
)
"""The literal start of every alternative of `_ANY_EN`, matched case-sensitively on lower-cased text."""


def _states_nothing(text: str) -> bool:
    """True when an ASCII text can match neither `_ANY_EN` nor `_PREFER_EN`: no attribute word and no "prefer"
    occurs in it in any case (on ASCII text the case-insensitive patterns match only where the lower-cased text
    holds them; two plain searches cost a fraction of the case-insensitive one)."""
    if not text.isascii():
        return False
    low = text.lower()
    return "prefer" not in low and _EN_STARTS.search(low) is None


_PREFER_EN = re.compile(r"\bprefer(?:s|red)?\s+(.+?)\s*(?:[.;!?]|$)", re.I)
_PREFER_ZH = re.compile(r"(?:喜欢|偏好|倾向于|更想要)(.+?)的?(回答|回复|风格|方式|座位|饮料|颜色|餐|口味)")
_MARKER_EN = re.compile(r"\b(?:to|is|are|was|were|be|at|on|in|into|as|for|now)\s+", re.I)
_MARKER_ZH = re.compile(r"(改成|改为|改到|换成|换到|定为|定在|变成|是|为|在|到|去|成)")
_STOP_VALUE = frozenset("the a an now actually instead be been being".split())
_ENTITY_SKIP = frozenset(
    "the a an actually now later also so but and then today yesterday tomorrow instead please note on in at "
    "after before update correction meanwhile however keep make ensure set stay plan buy book use let try limit "
    "spend hold maintain remember total don't do not never always".split()
)
_USER_WORDS = re.compile(r"\b(user|users|i|my|me|customer|client)\b|用户|我|客户", re.I)
_TEAM_WORDS = re.compile(r"\b(we|our|us|team|company)\b|我们|团队|公司", re.I)
_ZH_NAME = re.compile(r"^([\u4e00-\u9fff]{2,3}?)(?:的|把|说|要|搬|住|将|已|在|决定|已经)")
_CLAUSE_END = re.compile(r"[.;!?。；！？\n]|,\s|，")


@dataclass(frozen=True)
class Slot:
    """One stated value: who (entity), what (attribute), which value (normalised text and, if any, number)."""

    entity: str
    attribute: str
    value: str
    number: float | None = None
    qualifier: str = ""

    @property
    def key(self) -> str:
        return f"{self.entity}|{self.attribute}"

    def contradicts(self, other: Slot) -> bool:
        """Same key and compatible qualifier ('trip budget' vs 'party budget' differ; a missing one matches),
        different value (numbers compared as numbers; a text contained in the other is no clash)."""
        if self.key != other.key:
            return False
        if self.qualifier and other.qualifier and self.qualifier != other.qualifier:
            return False
        if self.number is not None and other.number is not None:
            return abs(self.number - other.number) > 1e-9 * max(1.0, abs(self.number))
        if self.number is not None or other.number is not None:
            return False
        a, b = self.value, other.value
        return bool(a and b) and a not in b and b not in a


def _norm_number(value: float) -> str:
    return f"{value:g}"


def _entity_en(prefix: str, after: str = "") -> str:
    """Who the attribute belongs to: a possessor ('Jack's flight', 'deadline for Alice's report'), the user, the
    first name in the clause, or the team; 'user' by default."""
    owner = _OWNER_AFTER.match(after) or _OWNER_BEFORE.search(prefix)
    if owner:
        return owner.group(1).lower()
    prefix = re.split(r"[:;]", prefix)[-1]
    if _USER_WORDS.search(prefix):
        return "user"
    for word in re.findall(r"[A-Za-z][\w'-]*", prefix):
        base = word.removesuffix("'s")
        if base[:1].isupper() and base.lower() not in _ENTITY_SKIP:
            return base.lower()
    if _TEAM_WORDS.search(prefix):
        return "team"
    return "user"


def _entity_zh(text: str, prefix: str) -> str:
    """The possessor right before the attribute ('房东把吴昊的房租' -> 吴昊), else the sentence's leading name."""
    tokens = [t for t in _jieba_cut()(prefix) if t.strip()]
    if len(tokens) >= 2 and tokens[-1] == "的" and has_cjk(tokens[-2]) and len(tokens[-2]) >= 2:
        owner = _trim_name(tokens[-2])
        if _USER_WORDS.fullmatch(owner):
            return "user"
        return "team" if _TEAM_WORDS.fullmatch(owner) else owner
    if _USER_WORDS.search(prefix):
        return "user"
    if _TEAM_WORDS.search(prefix):
        return "team"
    lead = [t for t in tokens if t not in _ZH_DISCOURSE]
    if lead and 2 <= len(lead[0]) <= 3 and has_cjk(lead[0]) and lead[0] not in _ATTR_WORDS_ZH:
        return _trim_name(lead[0])
    m = _ZH_NAME.match(text.strip())
    if m and m.group(1) not in _ATTR_WORDS_ZH and m.start(1) < len(prefix) + 1:
        return m.group(1)
    return "user"


_VERB_TAIL = frozenset("订说要把在将已想让给和买选定住搬")


def _trim_name(token: str) -> str:
    """jieba sometimes glues a one-character verb to a name ('杨磊订'): cut it off."""
    return token[:-1] if len(token) == 3 and token[-1] in _VERB_TAIL else token


_ZH_DISCOURSE = frozenset(
    "其实 实际上 另外 现在 后来 然后 不过 但是 而且 听说 据说 今天 昨天 明天 最近".split()
)


_ATTR_WORDS_ZH = frozenset(w for _, zh in ATTRIBUTES.values() for w in zh)


def _clause(text: str) -> str:
    m = _CLAUSE_END.search(text)
    return text[: m.start()] if m else text


def _value_en(rest: str, direct: bool) -> str:
    clause = _clause(rest)
    if direct:
        # "moved to New York last year" -> "new york": the object is the leading capitalised words (at least one)
        words = re.findall(r"[\w'-]+", clause)
        taken = words[:1] + [w for w in _leading_capitalised(words[1:3])]
        return " ".join(w.lower() for w in taken)
    if not direct:
        markers = list(_MARKER_EN.finditer(clause))
        if not markers:
            return ""
        clause = clause[markers[-1].end() :]
    words = [w for w in re.findall(r"[\w'-]+", clause.lower()) if w not in _STOP_VALUE]
    return " ".join(words[:3])


_OWNER_BEFORE = re.compile(r"\b([A-Z][\w-]*)'s\s+(?:[a-z][\w-]*\s+){0,2}$")
_OWNER_AFTER = re.compile(r"^\s+(?:of|for)\s+([A-Z][\w-]*)'s\b")
_QUAL_AFTER_OWNED = re.compile(r"^\s+(?:of|for)\s+[A-Z][\w-]*'s\s+([a-z][\w-]*)")
_QUAL_AFTER = re.compile(
    r"^\s+(?:of|for)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?([a-z][\w-]*)"
)
_AS_THE = re.compile(r"\b([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)\s+as\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+)?$")
_QUAL_SKIP_EN = frozenset(
    "the a an my our your his her their its this that total overall new current whole entire final same "
    "to of for and or is was be".split()
)
_QUAL_SKIP_ZH = frozenset(
    "的 把 将 了 和 与 说 用户 我 我们 总 整体 新 目前 当前 全部 控制 严格控制 要求 明确 也 都 在".split()
)


def _qualifier_en(before: str, after: str) -> str:
    """What the attribute is of: 'budget for the trip' / 'trip budget' -> 'trip' ('' if unqualified)."""
    m = _QUAL_AFTER_OWNED.match(after) or _QUAL_AFTER.match(after)
    if m and m.group(1) not in _QUAL_SKIP_EN:
        return m.group(1)
    words = re.findall(r"[\w'-]+", before)
    if not words:
        return ""
    word = words[-1]
    if not word.islower() or word in _QUAL_SKIP_EN or word.endswith(("'s", "ed", "ing")) or word.isdigit():
        return ""
    return word


def _qualifier_zh(before: str, entity: str) -> str:
    """The noun right before a Chinese attribute ('设备预算' -> '设备'), skipping 的 and function words."""
    tokens = [t for t in _jieba_cut()(before) if t.strip()]
    while tokens and tokens[-1] == "的":
        tokens.pop()
    if not tokens:
        return ""
    token = tokens[-1]
    if token in _QUAL_SKIP_ZH or token == entity or len(token) < 2 or not has_cjk(token):
        return ""
    return token


def _leading_capitalised(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        if not word[:1].isupper():
            break
        out.append(word)
    return out


@lru_cache(maxsize=1)
def _jieba_cut() -> Any:
    from psychoagent.text import _jieba

    return _jieba().lcut


def _value_zh(rest: str) -> str:
    clause = _clause(rest)
    markers = list(_MARKER_ZH.finditer(clause))
    if markers:
        clause = clause[markers[-1].end() :]
    words = [w for w in _jieba_cut()(clause) if w.strip() and w not in ("了", "的", "将", "已", "也")]
    return words[0] if words else ""


_ORDINAL_BEFORE = re.compile(
    r"(?:number|no\.?|#|version|v|round|phase|step|item|room|floor|第|编号)\s*$", re.I
)


def _numeric(text: str, rest: str) -> float | None:
    """The value of a numeric attribute: the target of a change, else the last number within a few words after
    the attribute that is not an ordinal ('review number 2', '#3')."""
    moved = change(text)
    if moved is not None:
        return moved[1]
    clause = _clause(rest)
    found: list[float] = []
    for m in NUMBER.finditer(clause):
        before = clause[: m.start()]
        if len(re.findall(r"\w+", before)) > _MAX_VALUE_DISTANCE or _ORDINAL_BEFORE.search(before):
            continue
        found.append(to_number(m.group(1), m.group(2)))
    return found[-1] if found else None


def extract_slots(text: str) -> list[Slot]:
    """The slots a sentence states (at most one per attribute); [] when it states none."""
    return list(_extract_cached(text))


@lru_cache(maxsize=TEXT_CACHE // 2)
def _extract_cached(text: str) -> tuple[Slot, ...]:
    return tuple(_extract(text))


def _extract(text: str) -> list[Slot]:
    out: list[Slot] = []
    seen: set[str] = set()
    zh = has_cjk(text)
    mentions: list[tuple[int, int, str]] = []
    if zh:
        for name, (_, words) in ATTRIBUTES.items():
            for word in words:
                pos = text.find(word)
                if pos >= 0:
                    mentions.append((pos, pos + len(word), name))
                    break
    if not zh and _states_nothing(text):
        return []
    if not zh and _ANY_EN.search(text) is None:
        return _preferences(text, zh)
    for name, pattern in _EN_PATTERNS:
        m = pattern.search(text)
        if m:
            mentions.append((m.start(), m.end(), name))
    ordered = sorted(mentions)
    while len(ordered) > 1 and ordered[1][0] - ordered[0][1] <= 1:
        ordered.pop(0)  # "trip budget": the head noun is the attribute, the modifier its qualifier
    for start, end, name in ordered[:1]:  # one fact per sentence: its first attribute
        if name in seen:
            continue
        rest = text[end:]
        number = _numeric(text, rest) if name in _NUMERIC_ATTRS else None
        if name in _NUMERIC_ATTRS and number is None:
            continue
        if number is not None:
            value = _norm_number(number)
        elif zh:
            value = _value_zh(rest)
        else:
            value = _value_en(rest, direct=name in _OBJECT_ATTRS)
        if not value:
            continue
        entity = _entity_zh(text, text[:start]) if zh else _entity_en(text[:start], rest)
        if name in _OBJECT_ATTRS:
            qualifier = ""
        else:
            qualifier = _qualifier_zh(text[:start], entity) if zh else _qualifier_en(text[:start], rest)
        if not zh and (not value or value == qualifier):
            m = _AS_THE.search(text[:start])
            value = m.group(1).lower() if m else value
        if not value:
            continue
        out.append(Slot(entity, name, value, number, qualifier))
        seen.add(name)
    return out or _preferences(text, zh)


def _preferences(text: str, zh: bool) -> list[Slot]:
    """'prefers short answers' -> (user, preference:answers, short): the object names the slot."""
    if zh:
        m = _PREFER_ZH.search(text)
        value = m.group(1).strip().strip("的") if m else ""
        if not m or not value:
            return []
        return [Slot(_entity_zh(text, text[: m.start()]), f"preference:{m.group(2)}", value)]
    m = _PREFER_EN.search(text)
    if not m:
        return []
    words = re.findall(r"[\w'-]+", m.group(1).lower())
    words = [w for w in words if w not in _STOP_VALUE]
    if len(words) < 2:
        return []
    return [Slot(_entity_en(text[: m.start()]), f"preference:{words[-1]}", " ".join(words[:-1]))]
