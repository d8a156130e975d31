"""Small hand-written word lists the heuristic appraiser needs beyond VADER.

They cover what general sentiment lexicons miss in an agent's task log: success and failure of work, surprise and
error words that raise arousal, reversal markers, negators and intensifiers (Chinese), opposite preferences, and
the phrasing of numeric constraints. Kept short on purpose: each entry is a rule a reader can check.
"""

from __future__ import annotations

import re

# Task outcomes (both languages): sentiment lexicons trained on reviews or tweets under-rate these.
SUCCESS_EN = frozenset(
    "succeeded success successful successfully completed complete done solved fixed passed approved won win "
    "profit profitable gain gained achieved delivered resolved accepted thanks thank".split()
)
FAILURE_EN = frozenset(
    "failed fail failure error errors crash crashed broken bug exception timeout timed lost loss rejected "
    "refused denied overdue late missed blocked outage corrupted angry complaint complained refund".split()
)
SUCCESS_ZH = (
    "成功",
    "完成",
    "解决",
    "通过",
    "满意",
    "赚",
    "盈利",
    "顺利",
    "开心",
    "高兴",
    "喜欢",
    "感谢",
    "谢谢",
    "好评",
)
FAILURE_ZH = (
    "失败", "错误", "报错", "崩溃", "故障", "亏损", "亏", "损失", "拒绝", "超时", "延误", "投诉", "生气", "愤怒",
    "不满", "糟糕", "失望", "差评", "退款", "问题", "难过", "讨厌", "担心",
)  # fmt: skip
NEGATORS_ZH = ("不", "没", "没有", "未", "别", "无", "非", "不是", "并非")
INTENSIFIERS_ZH = ("非常", "很", "太", "特别", "极其", "十分", "超级", "真", "极", "最", "相当", "格外")

# Arousal: intensity, surprise and error words (an error demands attention even when its valence is mild).
AROUSAL_EN = frozenset(
    "urgent urgently critical immediately emergency severe serious suddenly sudden unexpected unexpectedly "
    "surprise surprising surprisingly shocking shocked alarm alarming panic crash crashed failed failure error "
    "exception outage asap now furious angry disaster huge massive dramatically sharply".split()
)
AROUSAL_ZH = (
    "紧急", "严重", "突然", "意外", "竟然", "居然", "崩溃", "失败", "错误", "异常", "马上", "立刻", "立即", "惊",
    "震惊", "愤怒", "生气", "暴跌", "暴涨", "大幅", "急", "警告", "事故",
)  # fmt: skip

# Reversal markers: the speaker takes something back.
REVERSAL_EN = re.compile(
    r"\b(actually|instead|changed? (?:my|his|her|their|our) minds?|on second thought|scratch that|"
    r"no longer|not anymore|any ?more|rather than|correction|never ?mind|switch(?:ed)? to|cancel(?:led|ed)?)\b",
    re.I,
)
REVERSAL_ZH = re.compile(
    r"(不要了|改成|改为|改到|其实|算了|换成|换到|取消|不再|还是改|更正|改主意|反悔|变卦)"
)

# Cancelling or negating what a goal asks for.
GOAL_NEGATION_EN = re.compile(
    r"\b(don'?t|do not|does not|doesn'?t|no longer|stop(?:ped)?|cancel(?:led|ed)?|drop(?:ped)?|abandon(?:ed)?|"
    r"ignore[ds]?|forget|skip(?:ped)?|never|won'?t|will not|refuse[ds]?)\b",
    re.I,
)
GOAL_NEGATION_ZH = re.compile(r"(不要|不用|不必|不再|取消|放弃|别|停止|不想|拒绝|无需|忽略)")

# Opposite preferences: a goal with a word on one side meets an event with a word on the other.
OPPOSITES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("cheap", "cheapest", "save money", "low cost", "low-cost", "budget", "frugal", "affordable", "省钱", "便宜", "节省", "控制成本", "低价"),
        ("expensive", "premium", "the best", "top-end", "high-end", "luxury", "贵", "最好", "高端", "顶级", "奢侈"),
    ),
    (
        ("concise", "short", "brief", "简洁", "简短", "简单"),
        ("detailed", "long", "thorough", "in depth", "verbose", "详细", "冗长", "全面", "深入"),
    ),
    (("fast", "quick", "quickly", "asap", "urgent", "快", "尽快", "加急"), ("slow", "slowly", "later", "慢", "推迟", "延后")),
    (("increase", "raise", "more", "grow", "增加", "提高", "扩大"), ("decrease", "cut", "less", "reduce", "减少", "降低", "削减")),
    (("quiet", "calm", "安静"), ("loud", "noisy", "吵闹")),
    (("safe", "low risk", "conservative", "稳健", "保守", "安全"), ("risky", "aggressive", "high risk", "激进", "冒险", "高风险")),
)  # fmt: skip

# Numeric constraints in goals.
_NUM = r"(\d+(?:[.,]\d+)*(?:\.\d+)?)\s*(k|万|千)?"
UPPER_EN = re.compile(
    r"\b(?:under|below|less than|at most|no more than|not (?:to )?exceed|not more than|within|maximum(?: of)?|"
    r"max(?:imum)?|up to|cap(?:ped)? at|lower than)\s*(?:[$¥€£]|rmb|usd|cny)?\s*" + _NUM,
    re.I,
)
LOWER_EN = re.compile(
    r"\b(?:over|above|more than|at least|no less than|minimum(?: of)?|min|not below|higher than)\s*"
    r"(?:[$¥€£]|rmb|usd|cny)?\s*" + _NUM,
    re.I,
)
UPPER_ZH_PRE = re.compile(r"(?:不超过|不高于|低于|少于|最多|至多|控制在|上限|不能超过|别超过)\s*" + _NUM)
UPPER_ZH_POST = re.compile(_NUM + r"\s*(?:元|块|美元|人民币|个|人|天|小时|分钟|%)?\s*(?:以内|以下|之内|内)")
LOWER_ZH_PRE = re.compile(r"(?:至少|不少于|不低于|高于|超过|最少|下限)\s*" + _NUM)
LOWER_ZH_POST = re.compile(_NUM + r"\s*(?:元|块|美元|人民币|个|人|天|小时|分钟|%)?\s*以上")

NUMBER = re.compile(r"(?<![\d.,])[$¥€£]?(\d+(?:,\d{3})*(?:\.\d+)?)\s*(k\b|K\b|万|千)?")
FROM_TO_EN = re.compile(r"\bfrom\s*[$¥€£]?\s*" + _NUM + r".{0,40}?\bto\s*[$¥€£]?\s*" + _NUM, re.I)
FROM_TO_ZH = re.compile(r"从\s*" + _NUM + r".{0,20}?(?:到|至|成|为)\s*" + _NUM)

_MULTIPLIER = {"k": 1e3, "K": 1e3, "千": 1e3, "万": 1e4}


def to_number(digits: str, suffix: str | None = None) -> float:
    """'3,000' -> 3000.0; '2k' -> 2000.0; '1.5万' -> 15000.0."""
    value = float(digits.replace(",", ""))
    return value * _MULTIPLIER.get(suffix or "", 1.0)


def numbers(text: str) -> list[float]:
    """All numbers written in a text, in order (with k / 千 / 万 multipliers)."""
    return [to_number(m.group(1), m.group(2)) for m in NUMBER.finditer(text)]


def change(text: str) -> tuple[float, float] | None:
    """(old, new) of a 'from X to Y' / '从X到Y' change, if the text states one."""
    m = FROM_TO_EN.search(text) or FROM_TO_ZH.search(text)
    if m is None:
        return None
    return to_number(m.group(1), m.group(2)), to_number(m.group(3), m.group(4))


def constraints(goal: str) -> list[tuple[str, float]]:
    """Numeric bounds a goal states: [('max', 2000.0)] for 'under 2000' or '2000元以内'."""
    out: list[tuple[str, float]] = []
    for pattern, kind in (
        (UPPER_EN, "max"),
        (UPPER_ZH_PRE, "max"),
        (UPPER_ZH_POST, "max"),
        (LOWER_EN, "min"),
        (LOWER_ZH_PRE, "min"),
        (LOWER_ZH_POST, "min"),
    ):
        for m in pattern.finditer(goal):
            out.append((kind, to_number(m.group(1), m.group(2))))
    return out


def has_cjk(text: str) -> bool:
    """True if the text contains Chinese characters."""
    return re.search(r"[\u3400-\u9fff]", text) is not None


_ZH_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}


def zh_number(text: str) -> float | None:
    """'二十' -> 20, '十五' -> 15, '35' -> 35 (numbers up to 999 in Chinese characters)."""
    try:
        return float(text)
    except ValueError:
        pass
    total, current = 0, 0
    for ch in text:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        else:
            return None
    return float(total + current)
