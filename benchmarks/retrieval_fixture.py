"""A deterministic retrieval fixture in English and Chinese: facts, hard distractors and queries with known answers.

Every person has one fact per kind (residence, job, pet, hobby, allergy, support ticket). Distractors mention the
same names and values in unrelated statements, so a query must match both who and what. Queries are paraphrases
("Where does Alice live now?"), value look-ups ("Who moved to Lisbon?") and keyword-heavy ones (ticket codes, pet
names) and exact serial numbers that embeddings handle poorly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EN_NAMES = ("Alice Bob Carol David Erin Frank Grace Henry Irene Jack Karen Leo Maria Nathan Olivia Peter Quinn "
            "Rachel Samuel Tina").split()  # fmt: skip
ZH_NAMES = "王芳 李伟 张敏 刘洋 陈静 杨磊 赵丽 黄强 周杰 吴娜 徐涛 孙悦 马超 朱琳 胡斌 郭敏 何军 高燕 林峰 罗霞".split()
EN_CITIES = ("Lisbon Berlin Oslo Nairobi Toronto Kyoto Lima Dublin Prague Seoul Austin Munich Cairo Porto Zurich "
             "Madrid Vienna Denver Helsinki Quito").split()  # fmt: skip
ZH_CITIES = "成都 杭州 西安 厦门 青岛 昆明 大连 苏州 南京 重庆 武汉 长沙 哈尔滨 拉萨 桂林 三亚 洛阳 天津 合肥 贵阳".split()
EN_JOBS = [("nurse", "St. Mary's Hospital"), ("pilot", "Northwind Airlines"), ("baker", "Golden Crust"),
           ("lawyer", "Hale & Finch"), ("teacher", "Riverside School"), ("chef", "Blue Olive"),
           ("architect", "Stone Arc"), ("journalist", "Daily Ledger"), ("plumber", "FlowFix"),
           ("dentist", "Bright Smile Clinic")]  # fmt: skip
ZH_JOBS = [("护士", "人民医院"), ("飞行员", "东方航空"), ("面包师", "金麦坊"), ("律师", "正义律所"), ("老师", "实验中学"),
           ("厨师", "川味馆"), ("建筑师", "华筑设计院"), ("记者", "晨报"), ("水管工", "安心维修"), ("牙医", "微笑诊所")]  # fmt: skip
EN_PETS = [
    "parrot",
    "tortoise",
    "beagle",
    "ferret",
    "goldfish",
    "tabby cat",
    "rabbit",
    "hamster",
    "iguana",
    "corgi",
]
ZH_PETS = ["鹦鹉", "乌龟", "比格犬", "雪貂", "金鱼", "狸花猫", "兔子", "仓鼠", "蜥蜴", "柯基"]
PET_NAMES = ("Biscuit Pepper Mochi Ziggy Nimbus Waffles Tofu Rocket Clover Pixel Juniper Momo Sprout Noodle Sable "
             "Quokka Fable Tango Kiwi Marble").split()  # fmt: skip
ZH_PET_NAMES = "豆豆 球球 毛毛 点点 旺财 咪咪 花花 乐乐 团团 圆圆 小黑 小白 糖糖 果果 阿福 大黄 胖胖 丫丫 嘟嘟 米粒".split()
EN_HOBBIES = ["rock climbing", "playing chess", "restoring old bicycles", "bird watching", "pottery",
              "sailing", "baking sourdough", "learning the violin", "trail running", "painting watercolours"]  # fmt: skip
ZH_HOBBIES = [
    "攀岩",
    "下围棋",
    "修复旧自行车",
    "观鸟",
    "做陶艺",
    "航海",
    "烤面包",
    "拉小提琴",
    "越野跑",
    "画水彩画",
]
EN_FOODS = [
    "peanuts",
    "shellfish",
    "gluten",
    "eggs",
    "soy",
    "sesame",
    "milk",
    "kiwi fruit",
    "mustard",
    "celery",
]
ZH_FOODS = ["花生", "海鲜", "麸质", "鸡蛋", "大豆", "芝麻", "牛奶", "猕猴桃", "芥末", "芹菜"]
EN_DEVICES = [("laptop", "would not boot"), ("printer", "kept jamming"), ("router", "dropped the connection"),
              ("phone", "overheated"), ("monitor", "flickered")]  # fmt: skip
ZH_DEVICES = [
    ("笔记本电脑", "无法开机"),
    ("打印机", "经常卡纸"),
    ("路由器", "频繁断网"),
    ("手机", "发烫"),
    ("显示器", "闪屏"),
]
EN_CHATTER = ["{n} said the weather in {c} was lovely", "{n} watched a documentary about {c}",
              "{n} read an article about {pet}s", "{n} asked a colleague about {hobby}",
              "{n} bought a cookbook without {food}", "{n} mentioned a friend who is a {job}",
              "{n} booked a meeting room for Thursday", "{n} complained about the traffic"]  # fmt: skip
ZH_CHATTER = ["{n}说{c}的天气很好", "{n}看了一部关于{c}的纪录片", "{n}读了一篇关于{pet}的文章", "{n}向同事请教{hobby}",
              "{n}买了一本不含{food}的菜谱", "{n}提到一个当{job}的朋友", "{n}预订了周四的会议室", "{n}抱怨交通太堵"]  # fmt: skip


FACTS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        ("home", "{n} moved to {city} last spring and loves the neighbourhood."),
        ("job", "{n} works as a {job} at {company}."),
        ("pet", "{n} adopted a {pet} named {pname}."),
        ("hobby", "On weekends {n} spends hours {hobby}."),
        ("food", "{n} is allergic to {food}."),
        ("ticket", "Support ticket {code}: {n} reported that the {device} {problem}."),
        ("serial", "The warranty card lists serial number {serial} for the {device} owned by {n}."),
    ),
    "zh": (
        ("home", "{n}去年春天搬到了{city}，很喜欢那里的街区。"),
        ("job", "{n}在{company}当{job}。"),
        ("pet", "{n}领养了一只{pet}，取名叫{pname}。"),
        ("hobby", "{n}每到周末都会花很多时间{hobby}。"),
        ("food", "{n}对{food}过敏。"),
        ("ticket", "工单{code}：{n}反映{device}{problem}。"),
        ("serial", "保修卡上登记的序列号{serial}属于{n}的{device}。"),
    ),
}
"""A person's facts per language: (kind, template); the unit of kind K of person P has the id P-K."""

QUESTIONS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "en": (
        ("home", "Where does {n} live now?", "paraphrase"),
        ("job", "What is {n}'s profession?", "paraphrase"),
        ("pet", "Does {n} have any animals at home?", "paraphrase"),
        ("hobby", "What does {n} do for fun?", "paraphrase"),
        ("food", "Which food must {n} avoid?", "paraphrase"),
        ("ticket", "What was ticket {code} about?", "keyword"),
        ("pet", "What kind of animal is {pname}?", "keyword"),
        ("home", "Who relocated to {city}?", "value"),
        ("serial", "Which device has serial {serial}?", "exact"),
    ),
    "zh": (
        ("home", "{n}现在住在哪里？", "paraphrase"),
        ("job", "{n}是做什么工作的？", "paraphrase"),
        ("pet", "{n}家里养动物吗？", "paraphrase"),
        ("hobby", "{n}平时有什么爱好？", "paraphrase"),
        ("food", "{n}不能吃什么？", "paraphrase"),
        ("ticket", "工单{code}是关于什么的？", "keyword"),
        ("pet", "{pname}是什么动物？", "keyword"),
        ("home", "谁搬去了{city}？", "value"),
        ("serial", "序列号{serial}是谁的设备？", "exact"),
    ),
}
"""A person's questions per language: (kind of the fact that answers it, template, what the question tests)."""


@dataclass(frozen=True)
class Query:
    """A query and the id of the one unit that answers it; `kind` says what it tests."""

    id: str
    text: str
    relevant: str
    kind: str
    lang: str


def build(distractors_per_person: int = 12, seed: int = 7) -> tuple[list[dict[str, str]], list[Query]]:
    """(units as {"id", "text"}, queries); deterministic for a seed."""
    rng = np.random.default_rng(seed)
    units: list[dict[str, str]] = []
    queries: list[Query] = []

    def add(uid: str, text: str) -> None:
        units.append({"id": uid, "text": text})

    for lang in ("en", "zh"):
        names = EN_NAMES if lang == "en" else ZH_NAMES
        cities = EN_CITIES if lang == "en" else ZH_CITIES
        jobs = EN_JOBS if lang == "en" else ZH_JOBS
        pets = EN_PETS if lang == "en" else ZH_PETS
        pet_names = PET_NAMES if lang == "en" else ZH_PET_NAMES
        hobbies = EN_HOBBIES if lang == "en" else ZH_HOBBIES
        foods = EN_FOODS if lang == "en" else ZH_FOODS
        devices = EN_DEVICES if lang == "en" else ZH_DEVICES
        chatter = EN_CHATTER if lang == "en" else ZH_CHATTER
        for i, n in enumerate(names):
            city, (job, company), pet = cities[i], jobs[i % 10], pets[(i * 3) % 10]
            pname, hobby, food = pet_names[i], hobbies[(i * 7) % 10], foods[(i * 3 + 1) % 10]
            device, problem = devices[i % 5]
            code = f"TK-{4000 + i * 37 + (0 if lang == 'en' else 9000)}"
            serial = f"{int(rng.integers(100_000, 999_999))}"
            p = f"{lang}{i}"
            values = {"n": n, "city": city, "job": job, "company": company, "pet": pet, "pname": pname,
                      "hobby": hobby, "food": food, "code": code, "device": device, "problem": problem,
                      "serial": serial}  # fmt: skip
            for kind, template in FACTS[lang]:
                add(f"{p}-{kind}", template.format(**values))
            qs = [(target, template.format(**values), kind) for target, template, kind in QUESTIONS[lang]]
            for j, (target, text, kind) in enumerate(qs):
                queries.append(Query(f"{p}-q{j}", text, f"{p}-{target}", kind, lang))
            for d in range(distractors_per_person):
                template = chatter[int(rng.integers(len(chatter)))]
                other = int(rng.integers(len(names)))
                add(
                    f"{p}-noise{d}",
                    template.format(
                        n=n,
                        c=cities[other],
                        pet=pets[other % 10],
                        hobby=hobbies[other % 10],
                        food=foods[other % 10],
                        job=jobs[other % 10][0],
                    ),
                )
    order = rng.permutation(len(units))
    return [units[i] for i in order], queries
