"""Generated conflict scenarios, English and Chinese: a fact, distractors, a later contradicting fact, a query.

Each scenario is built from a template (attribute, phrasing of the old and new fact, the question) filled with a
random entity and two different values; the distractors between the two facts mix unrelated events with hard
negatives: the same attribute for another entity or another object.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NAMES_EN = ("Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "Jack")
NAMES_ZH = ("张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄强", "周婷", "吴昊")
CITIES_EN = ("Berlin", "Paris", "Tokyo", "Madrid", "Toronto", "Sydney", "Oslo", "Lisbon", "Vienna", "Dublin")
CITIES_ZH = ("北京", "上海", "广州", "深圳", "成都", "杭州", "南京", "武汉", "西安", "重庆")
DAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
DAYS_ZH = ("周一", "周二", "周三", "周四", "周五")
ITEMS_EN = ("laptop", "monitor", "printer", "sofa", "bicycle", "camera")
ITEMS_ZH = ("笔记本电脑", "显示器", "打印机", "沙发", "自行车", "相机")
HOTELS = ("Hilton", "Marriott", "Hyatt", "Sheraton", "Ritz")

# (old fact, new fact, query); {n} entity, {a}/{b} old/new value, {o} object
TEMPLATES_EN = (
    ("{n} set the budget for the trip to {a} dollars.", "{n} raised the trip budget to {b} dollars.",
     "What is {n}'s budget for the trip?"),
    ("{n}'s budget for the party is {a} dollars.", "Actually, {n} changed the party budget to {b} dollars.",
     "How much can {n} spend on the party?"),
    ("{n} lives in {ca}.", "{n} moved to {cb} last month.", "Where does {n} live now?"),
    ("{n}'s meeting with the supplier is on {da}.", "{n}'s meeting with the supplier was moved to {db}.",
     "When is {n}'s meeting with the supplier?"),
    ("The price of the {o} is {a} yuan.", "The price of the {o} changed to {b} yuan.",
     "How much does the {o} cost?"),
    ("{n}'s salary is {a} dollars a month.", "{n}'s salary was increased to {b} dollars a month.",
     "What salary does {n} earn?"),
    ("{n} booked the {ha} as the hotel for the conference.", "{n} switched the hotel for the conference to the {hb}.",
     "Which hotel is {n} staying at for the conference?"),
    ("{n}'s rent is {a} dollars.", "{n}'s landlord raised the rent to {b} dollars.", "How much rent does {n} pay?"),
)  # fmt: skip
TEMPLATES_ZH = (
    ("{n}把旅行预算定为{a}元。", "{n}把旅行预算提高到{b}元。", "{n}的旅行预算是多少？"),
    ("{n}住在{ca}。", "{n}上个月搬到{cb}了。", "{n}现在住在哪里？"),
    ("{n}的会议在{da}。", "其实{n}的会议改到{db}了。", "{n}的会议是哪天？"),
    ("{o}的价格是{a}元。", "{o}的价格改为{b}元。", "{o}多少钱？"),
    ("{n}的工资是每月{a}元。", "{n}的工资涨到了每月{b}元。", "{n}每月工资多少？"),
    ("{n}的房租是{a}元。", "房东把{n}的房租提高到{b}元。", "{n}的房租是多少？"),
)  # fmt: skip

DISTRACTORS_EN = (
    "The weather was sunny and warm all afternoon.", "The team finished the quarterly report on time.",
    "The cat knocked a glass off the kitchen table.", "A new coffee machine was installed in the office.",
    "The train to the airport was ten minutes late.", "The printer on the second floor ran out of paper.",
    "Lunch today was noodles with vegetables.", "The library extended its opening hours on weekends.",
    "The football match ended in a draw.", "Someone left an umbrella in the meeting room.",
)  # fmt: skip
DISTRACTORS_ZH = (
    "今天下午天气晴朗。", "团队按时完成了季度报告。", "猫把桌上的杯子打翻了。", "办公室新装了一台咖啡机。",
    "去机场的火车晚点了十分钟。", "二楼的打印机没纸了。", "今天午饭吃的是蔬菜面条。", "图书馆周末延长了开放时间。",
    "足球比赛打成了平局。", "有人把雨伞落在会议室了。",
)  # fmt: skip


@dataclass
class Scenario:
    """Old fact, distractors, new fact and query; `lang` is 'en' or 'zh'."""

    lang: str
    old: str
    new: str
    distractors: list[str]
    query: str


def _fill(template: str, n: str, a: int, b: int, pick: dict[str, str]) -> str:
    return template.format(n=n, a=a, b=b, **pick)


def build(n_per_lang: int = 120, seed: int = 7, n_distractors: int = 6) -> list[Scenario]:
    """`n_per_lang` scenarios per language; hard negatives use the same template for another entity/object."""
    rng = np.random.default_rng(seed)
    out: list[Scenario] = []
    for lang, templates, names, cities, days, items, fillers in (
        ("en", TEMPLATES_EN, NAMES_EN, CITIES_EN, DAYS_EN, ITEMS_EN, DISTRACTORS_EN),
        ("zh", TEMPLATES_ZH, NAMES_ZH, CITIES_ZH, DAYS_ZH, ITEMS_ZH, DISTRACTORS_ZH),
    ):
        for i in range(n_per_lang):
            old_t, new_t, query_t = templates[i % len(templates)]
            name, other = (str(x) for x in rng.choice(names, size=2, replace=False))
            item, other_item = (str(x) for x in rng.choice(items, size=2, replace=False))
            ca, cb, cc = (str(x) for x in rng.choice(cities, size=3, replace=False))
            da, db, dc = (str(x) for x in rng.choice(days, size=3, replace=False))
            ha, hb, hc = (str(x) for x in rng.choice(HOTELS, size=3, replace=False))
            a, b, c = (int(x) * 100 for x in rng.choice(np.arange(5, 60), size=3, replace=False))
            pick = {"ca": ca, "cb": cb, "da": da, "db": db, "ha": ha, "hb": hb, "o": item}
            hard_pick = {**pick, "ca": cc, "da": dc, "ha": hc, "o": other_item}
            hard = _fill(old_t, other, c, c, hard_pick)
            chosen = [str(x) for x in rng.choice(fillers, size=n_distractors - 1, replace=False)]
            chosen.insert(int(rng.integers(0, len(chosen) + 1)), hard)
            out.append(Scenario(lang, _fill(old_t, name, a, b, pick), _fill(new_t, name, a, b, pick), chosen,
                                _fill(query_t, name, a, b, pick)))  # fmt: skip
    return out
