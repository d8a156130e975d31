"""Intent parsing (seed 3.2 step 1): a natural-language intent in English or Chinese -> structured orders.

"use 20% of cash to buy as much steel as possible" and "用20%的现金尽可能多地买入钢材" both become
`OrderSpec(side="BUY", instrument="steel", budget_share=0.2)`. Text that names no action, or an instrument the
agent cannot trade, yields no order and a reason instead of an exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from psychoagent.affect.lexicon import zh_number
from psychoagent.econ.mind.schema import OrderSpec, Side

DEFAULT_ALIASES: dict[str, tuple[str, ...]] = {
    "steel": ("steel", "钢材", "钢铁", "钢"),
    "stock:tech": ("tech stock", "tech shares", "stock:tech", "tech", "科技股", "科技公司股票", "科技"),
    "stock:consumer_goods": (
        "consumer goods stock", "consumer stock", "stock:consumer_goods", "consumer goods", "消费品股", "消费股",
    ),
    "stock:steel": ("steel stock", "steel shares", "stock:steel", "钢铁股", "钢厂股票"),
    "bond": ("government bonds", "government bond", "bonds", "bond", "国债", "债券"),
}  # fmt: skip
"""Instrument -> words that name it (longest match wins, so 'steel stock' beats 'steel')."""

_BUY = re.compile(
    r"\b(buy|purchase|acquire|accumulate|stock up|hoard|go long|invest|put)\b|买入|购买|买进|囤积|增持|买",
    re.I,
)
_SELL = re.compile(r"\b(sell|dump|offload|liquidate|unload|reduce|trim)\b|卖出|抛售|出售|减持|清仓|卖", re.I)
_WAIT = re.compile(r"\b(wait|hold off|do nothing|stay put|sit out)\b|观望|等待|不操作|按兵不动", re.I)
_PERCENT = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:%|％|percent|per cent)|百分之([零一二两三四五六七八九十百\d.]+)", re.I
)
_FRACTIONS = {
    "half": 0.5, "a half": 0.5, "一半": 0.5, "半数": 0.5, "a third": 1 / 3, "三分之一": 1 / 3,
    "a quarter": 0.25, "四分之一": 0.25, "all": 1.0, "everything": 1.0, "全部": 1.0, "所有": 1.0, "全仓": 1.0,
}  # fmt: skip
_QUANTITY = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:units?|shares?|tons?|tonnes?|lots?|个单位|单位|股|吨|手|份)", re.I
)
_LIMIT = re.compile(
    r"(?:at|@|below|under|above|over|no more than|not more than|at most|at least|up to|price of|limit)\s*\$?"
    r"(\d+(?:\.\d+)?)|(?:价格|单价|限价)?\s*(?:不超过|不高于|低于|不低于|高于|以|在)\s*(\d+(?:\.\d+)?)",
    re.I,
)


@dataclass
class ParsedIntent:
    """Orders found in an intent and, when none, why."""

    text: str
    orders: list[OrderSpec] = field(default_factory=list)
    wait: bool = False
    reason: str = ""


def _instrument(text: str, aliases: Mapping[str, Sequence[str]], allowed: Sequence[str] | None) -> str | None:
    low = text.lower()
    best: tuple[int, int, str] | None = None
    for name, words in aliases.items():
        for w in words:
            pos = low.find(w.lower())
            if pos >= 0 and (best is None or len(w) > best[0]):
                best = (len(w), pos, name)
    if best is None:
        return None
    name = best[2]
    if allowed is not None and name not in allowed:
        return None
    return name


def _share(text: str) -> float | None:
    m = _PERCENT.search(text)
    if m:
        value = float(m.group(1)) if m.group(1) else zh_number(m.group(2))
        if value is not None and 0 < value <= 100:
            return value / 100.0
    low = text.lower()
    for word, share in sorted(_FRACTIONS.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", low) if word.isascii() else word in text:
            return share
    return None


def parse_intent(
    text: str,
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
    allowed: Sequence[str] | None = None,
    default_share: float = 0.1,
) -> ParsedIntent:
    """Parse one intent; one order per sentence that names an action and an instrument."""
    aliases = aliases or DEFAULT_ALIASES
    out = ParsedIntent(text=text)
    if not text or not text.strip():
        out.reason = "empty intent"
        return out
    sentences = [s for s in re.split(r"[.;!?。；！？\n]+", text) if s.strip()]
    context: str | None = None
    context_share: float | None = None
    for sentence in sentences:
        named = _instrument(sentence, aliases, allowed)
        buy, sell = _BUY.search(sentence), _SELL.search(sentence)
        if not buy and not sell:
            context = named or context
            context_share = _share(sentence) or context_share
            if _WAIT.search(sentence):
                out.wait = True
            continue
        side: Side = "BUY" if buy and (not sell or buy.start() < sell.start()) else "SELL"
        if _PERCENT.search(sentence) and _share(sentence) is None:  # '500%': refused, not read as the default
            out.reason = f"share out of range (0-100%) in {sentence.strip()!r}"
            continue
        instrument = named or context
        if instrument is None:
            out.reason = f"no tradable instrument named in {sentence.strip()!r}"
            continue
        if named is None and any(o.side == side and o.instrument == instrument for o in out.orders):
            continue  # 'Buy it.' after the order was already stated
        share = _share(sentence) or (context_share if named is None else None)
        qty_match = _QUANTITY.search(sentence)
        quantity = float(qty_match.group(1)) if qty_match else None
        limit_match = _LIMIT.search(sentence)
        limit = None
        if limit_match:
            value = float(limit_match.group(1) or limit_match.group(2))
            if quantity is None or value != quantity:
                limit = value
        if quantity is None and share is None:
            share = default_share if side == "BUY" else 1.0
        out.orders.append(
            OrderSpec(
                side=side, instrument=instrument, quantity=quantity, budget_share=share, limit_price=limit
            )
        )
    if not out.orders and not out.reason:
        out.reason = "the intent is to wait" if out.wait else "no buy or sell action found"
    return out
