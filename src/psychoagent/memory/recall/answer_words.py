"""What a question asks for (a place, a person, a time, an amount) and surface evidence that a text supplies it.

"Where does Alice live?" is answered by a sentence that names a place, whatever else it shares with the question.
The question word fixes the answer type (English and Chinese); a text's structure (a capitalised name after "in",
a place suffix such as 市 or 路, a kinship word, a number with a unit) is evidence that it supplies one. The recall
stage in `answer_type` reads these rules as one feature beside the meaning of the text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from psychoagent.text import TEXT_CACHE

TYPES = ("place", "person", "time", "amount")
"""The answer types a question can ask for, in a fixed order (columns of the feature arrays)."""

_ASKS = (
    ("time", re.compile(
        r"^\s*(?:when|what (?:year|month|day|date|time)|which (?:year|month|day|date)|how long ago|"
        r"in which (?:year|month)|at what time)\b|什么时候|何时|哪年|哪一年|几月|几号|几点|哪天|哪一天|星期几|周几",
        re.IGNORECASE)),
    ("place", re.compile(
        r"\bwhere\b|\b(?:which|what|in which|in what) (?:city|country|town|place|state|village|restaurant|"
        r"venue|address|neighbou?rhood|location|street)\b|哪里|哪儿|哪兒|在哪|去哪|什么地方|哪个城市|哪座城市|哪个国家|"
        r"什么地点|哪个地方|地点是|地址",
        re.IGNORECASE)),
    ("person", re.compile(r"\bwho(?:m|se)?\b|\bwhich (?:person|friend|colleague|relative)\b|谁|哪位|什么人",
                          re.IGNORECASE)),
    ("amount", re.compile(
        r"\bhow (?:much|many|old|far)\b|\bwhat (?:is the |was the )?(?:price|cost|amount|budget|number|salary|"
        r"fee|limit)\b|多少|多大|几(?:个|位|只|条|件|次|天|岁|年|本|张|块|元|万|人|辆|杯|台|口)",
        re.IGNORECASE)),
)  # fmt: skip
"""Question patterns per type, tried in order: time first ("几点" and "what time" are times, not amounts)."""


def asked_type(query: str) -> str | None:
    """The answer type a question asks for ("Where does Alice live?" -> "place"), or None (most questions)."""
    for name, pattern in _ASKS:
        if pattern.search(query):
            return name
    return None


_PLACE_NOUNS = (
    r"city|town|country|village|street|road|avenue|park|beach|lake|river|mountains?|restaurant|cafe|café|bar|pub|"
    r"hotel|museum|gallery|school|university|college|campus|office|studio|shelter|church|hospital|clinic|airport|"
    r"station|apartment|flat|house|home|store|shop|mall|market|gym|library|island|coast|downtown|abroad|suburbs?|"
    r"neighbou?rhood|state|province|hall|terrace|rooftop|garden|center|centre|venue|room|farm|camp|trail"
)
_RULES: dict[str, tuple[tuple[re.Pattern[str], float], ...]] = {
    "place": (
        (re.compile(r"\b(?:in|at|to|from|near|into|visit(?:ed|ing)?|around|across|toward|towards)\s+"
                    r"(?:the\s+)?(?:[A-Z][\w'-]+)"), 1.0),
        (re.compile(rf"\b(?:{_PLACE_NOUNS})\b", re.IGNORECASE), 0.7),
        (re.compile(r"[\u4e00-\u9fff](?:市|省|县|区|镇|村|路|街|国|州|岛|山|湖|公园|餐厅|饭店|酒店|学校|大学|医院|"
                    r"机场|车站|中心|花园|广场|商场|超市|天台|酒吧|咖啡馆|办公室|公寓|小区)"), 1.0),
        (re.compile(r"住在|搬到|搬去|搬回|位于|来自|在[\u4e00-\u9fff]{1,4}(?:住|工作|上班|上学)"), 1.0),
    ),
    "person": (
        (re.compile(r"\b(?:mom|mum|mother|dad|father|parents?|sister|brother|sibling|son|daughter|kids?|children|"
                    r"wife|husband|partner|fianc[ée]e?|friends?|boyfriend|girlfriend|boss|manager|colleagues?|"
                    r"co-?workers?|teacher|doctor|neighbou?rs?|grand(?:ma|pa|mother|father|parents)|aunt|uncle|"
                    r"cousin|nephew|niece|coach|mentor|captain|team ?mates?|roommate|landlord|client)\b",
                    re.IGNORECASE), 0.8),
        (re.compile(r"\b(?:with|and|by|told|asked|met|called|named|hired|elected|chose|married)\s+[A-Z][a-z]+"), 1.0),
        (re.compile(r"妈妈|爸爸|父母|母亲|父亲|姐姐|妹妹|哥哥|弟弟|儿子|女儿|老公|老婆|丈夫|妻子|男朋友|女朋友|朋友|"
                    r"同事|老板|经理|老师|医生|邻居|奶奶|爷爷|外婆|外公|叔叔|阿姨|舅舅|表哥|表姐|队长|教练|房东|客户|"
                    r"(?:小|老)(?:王|张|李|刘|陈|杨|赵|黄|周|吴|林|徐|孙|马|朱|胡|郭|何|高|罗)"), 1.0),
    ),
    "time": (
        (re.compile(r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d\d\b|\b(?:monday|tuesday|wednesday|"
                    r"thursday|friday|saturday|sunday|morning|afternoon|evening|tonight|tomorrow|yesterday|noon|"
                    r"midnight|weekend|january|february|march|april|may|june|july|august|september|october|"
                    r"november|december|last (?:week|month|year)|next (?:week|month|year)|ago)\b",
                    re.IGNORECASE), 1.0),
        (re.compile(r"\d+\s*(?:点|号|日|月|年)|[一二三四五六七八九十两]+(?:点|号|月)|星期|周[一二三四五六日末]|"
                    r"上午|下午|晚上|早上|中午|明天|昨天|今天|上周|下周|上个月|下个月|去年|明年"), 1.0),
    ),
    "amount": (
        (re.compile(r"[$€£¥]\s?\d|\d[\d,.]*\s*(?:k\b|dollars?|euros?|pounds?|bucks|yuan|usd|eur|%|percent|"
                    r"kilos?|kg|km|miles?|hours?|minutes?|people|times|years? old)", re.IGNORECASE), 1.0),
        (re.compile(r"\d"), 0.7),
        (re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
                    r"fifty|hundred|thousand|million|dozen|couple|several|double|twice|half)\b", re.IGNORECASE),
         0.7),
        (re.compile(r"[\d一二两三四五六七八九十百千万亿]+\s*(?:个|位|只|条|件|次|天|岁|块|元|万|人|辆|杯|台|口|美元|"
                    r"公斤|公里|小时|分钟|倍)|多少|一半|翻倍"), 1.0),
    ),
}  # fmt: skip
"""Evidence that a text supplies each type, with its strength; a text's rule score is its strongest match."""


@lru_cache(maxsize=2 * TEXT_CACHE)
def rule_supply(text: str, kind: str) -> float:
    """How strongly a text's surface structure says it supplies `kind`, in [0, 1] (0: no evidence)."""
    best = 0.0
    for pattern, strength in _RULES[kind]:
        if strength > best and pattern.search(text):
            best = strength
    return best
