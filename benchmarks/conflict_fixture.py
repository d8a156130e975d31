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
    ("{n}'s flight to the conference leaves on {da}.", "Change of plan: {n}'s flight now leaves on {db}.",
     "When does {n}'s flight leave?"),
    ("The deadline for {n}'s report is {da}.", "{n} asked to push the report deadline to {db}.",
     "When is {n}'s report due?"),
)  # fmt: skip
TEMPLATES_ZH = (
    ("{n}把旅行预算定为{a}元。", "{n}把旅行预算提高到{b}元。", "{n}的旅行预算是多少？"),
    ("{n}住在{ca}。", "{n}上个月搬到{cb}了。", "{n}现在住在哪里？"),
    ("{n}的会议在{da}。", "其实{n}的会议改到{db}了。", "{n}的会议是哪天？"),
    ("{o}的价格是{a}元。", "{o}的价格改为{b}元。", "{o}多少钱？"),
    ("{n}的工资是每月{a}元。", "{n}的工资涨到了每月{b}元。", "{n}每月工资多少？"),
    ("{n}的房租是{a}元。", "房东把{n}的房租提高到{b}元。", "{n}的房租是多少？"),
    ("{n}的航班是{da}出发。", "{n}的航班改到{db}了。", "{n}的航班哪天出发？"),
    ("{n}订的酒店是{ha}。", "{n}把酒店换成了{hb}。", "{n}住哪家酒店？"),
)  # fmt: skip

# Held-out phrasings, set A: written after the slot extractor was finished. Its first measurement (before any
# change) is reported as such; the 'change marker' rule was then developed while looking at its failures.
HELDOUT_EN = (
    ("{n} is planning to spend {a} dollars on the new {o}.", "{n} now wants to spend no more than {b} dollars on "
     "the {o}.", "How much will {n} spend on the {o}?"),
    ("{n} works in the {ca} office.", "{n} transferred to the {cb} office.", "Which office does {n} work in?"),
    ("{n}'s appointment with the dentist is on {da}.", "The dentist moved {n}'s appointment to {db}.",
     "When is {n}'s dentist appointment?"),
    ("{n}'s project team has {a} people.", "{n}'s project team grew to {b} people.",
     "How many people are on {n}'s project team?"),
)  # fmt: skip
HELDOUT_ZH = (
    ("{n}打算花{a}元买{o}。", "{n}决定买{o}最多花{b}元。", "{n}买{o}准备花多少钱？"),
    ("{n}在{ca}办公室上班。", "{n}调到{cb}办公室了。", "{n}在哪个办公室上班？"),
    ("{n}和牙医的预约在{da}。", "牙医把{n}的预约改到了{db}。", "{n}的牙医预约是哪天？"),
)  # fmt: skip

# Held-out phrasings, set B: written before the change-marker rule and never used to tune anything.
HELDOUT_B_EN = (
    ("{n}'s gym membership costs {a} dollars a year.", "The gym raised {n}'s membership fee to {b} dollars a year.",
     "How much is {n}'s gym membership?"),
    ("{n}'s favourite restaurant is in {ca}.", "{n} has a new favourite restaurant in {cb}.",
     "Where is {n}'s favourite restaurant?"),
    ("{n}'s yoga class is on {da}.", "{n}'s yoga class now takes place on {db}.", "When is {n}'s yoga class?"),
    ("{n} is renting a flat in {ca}.", "{n} bought a house in {cb} and left the flat.", "Where does {n} live?"),
)  # fmt: skip
HELDOUT_B_ZH = (
    ("{n}的健身卡每年{a}元。", "健身房把{n}的年费涨到{b}元。", "{n}的健身卡多少钱？"),
    ("{n}的瑜伽课在{da}。", "{n}的瑜伽课调整到{db}。", "{n}的瑜伽课是哪天？"),
    ("{n}在{ca}租了一套公寓。", "{n}在{cb}买了房，搬出了公寓。", "{n}住在哪里？"),
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
    """Old fact, distractors, new fact and query; `lang` is 'en' or 'zh', `split` 'main' or 'heldout'."""

    lang: str
    old: str
    new: str
    distractors: list[str]
    query: str
    split: str = "main"


def _fill(template: str, n: str, a: int, b: int, pick: dict[str, str]) -> str:
    return template.format(n=n, a=a, b=b, **pick)


SETS = {
    "main": (TEMPLATES_EN, TEMPLATES_ZH),
    "heldout-a": (HELDOUT_EN, HELDOUT_ZH),
    "heldout-b": (HELDOUT_B_EN, HELDOUT_B_ZH),
}


def build(
    n_per_lang: int = 120, seed: int = 7, n_fillers: int = 8, n_hard: int = 3, split: str = "main"
) -> list[Scenario]:
    """`n_per_lang` scenarios per language from one template set ('main', 'heldout-a', 'heldout-b').

    Between the two facts: `n_fillers` unrelated events, `n_hard` hard negatives (the same template for other
    people or objects, with other values) and one other fact about the same person, shuffled.
    """
    rng = np.random.default_rng(seed)
    out: list[Scenario] = []
    en, zh = SETS[split]
    for lang, templates, names, cities, days, items, fillers in (
        ("en", en, NAMES_EN, CITIES_EN, DAYS_EN, ITEMS_EN, DISTRACTORS_EN),
        ("zh", zh, NAMES_ZH, CITIES_ZH, DAYS_ZH, ITEMS_ZH, DISTRACTORS_ZH),
    ):
        for i in range(n_per_lang):
            old_t, new_t, query_t = templates[i % len(templates)]
            people = [str(x) for x in rng.choice(names, size=n_hard + 1, replace=False)]
            objects = [str(x) for x in rng.choice(items, size=min(len(items), n_hard + 1), replace=False)]

            def pick(cities: tuple[str, ...] = cities, days: tuple[str, ...] = days) -> dict[str, str]:
                c = [str(x) for x in rng.choice(cities, size=2, replace=False)]
                d = [str(x) for x in rng.choice(days, size=2, replace=False)]
                h = [str(x) for x in rng.choice(HOTELS, size=2, replace=False)]
                return {"ca": c[0], "cb": c[1], "da": d[0], "db": d[1], "ha": h[0], "hb": h[1]}

            def money() -> tuple[int, int]:
                a, b = (int(x) * 100 for x in rng.choice(np.arange(5, 60), size=2, replace=False))
                return a, b

            mine = {**pick(), "o": objects[0]}
            a, b = money()
            distractors = [str(x) for x in rng.choice(fillers, size=n_fillers, replace=False)]
            for j in range(1, n_hard + 1):
                distractors.append(
                    _fill(old_t, people[j], *money(), {**pick(), "o": objects[j % len(objects)]})
                )
            other_t = templates[(i + 1 + int(rng.integers(0, len(templates) - 1))) % len(templates)][0]
            distractors.append(_fill(other_t, people[0], *money(), {**pick(), "o": objects[-1]}))
            order = rng.permutation(len(distractors))
            out.append(Scenario(lang, _fill(old_t, people[0], a, b, mine), _fill(new_t, people[0], a, b, mine),
                                [distractors[k] for k in order], _fill(query_t, people[0], a, b, mine), split))  # fmt: skip
    return out
