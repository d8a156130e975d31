"""People, roles and the domain-independent phrases (cues, speech verbs, sources, padding) in both languages."""

from __future__ import annotations

NAMES = {
    "en": {
        "f": ("Anna", "Mia", "Emma", "Sofia", "Grace", "Chloe", "Laura", "Nina", "Olivia", "Hannah", "Ruth",
              "Priya", "Leila", "Yuki", "Fatima", "Clara", "Ines", "Zoe", "Maya", "Julia"),
        "m": ("Tom", "Ken", "Ben", "Carlos", "David", "Omar", "Luke", "Sam", "Raj", "Felix", "Marco", "Hugo",
              "Leo", "Jonas", "Ivan", "Kofi", "Daniel", "Peter", "Arjun", "Ethan"),
    },
    "zh": {
        "f": ("李娜", "王芳", "陈静", "赵敏", "周婷", "林晓雨", "孙丽", "何雪", "郭佳", "马兰", "许倩", "刘梅",
              "黄欣", "徐慧", "罗晶", "宋雨欣", "唐悦", "韩雪", "冯晓", "邓琳"),
        "m": ("张伟", "刘洋", "杨磊", "黄强", "吴昊", "王涛", "李明", "陈刚", "赵鹏", "孙杰", "周斌", "高翔",
              "郑凯", "胡军", "朱峰", "谢宇", "梁超", "宋浩", "韩立", "曹阳"),
    },
}  # fmt: skip

# (role as a noun phrase, gender or "" when either fits)
ROLES = {
    "en": (("my sister", "f"), ("my mother", "f"), ("my aunt", "f"), ("my daughter", "f"), ("my brother", "m"),
           ("my father", "m"), ("my uncle", "m"), ("my son", "m"), ("my neighbour", ""), ("my colleague", ""),
           ("my best friend", ""), ("my cousin", ""), ("my boss", ""), ("my flatmate", "")),
    "zh": (("我姐姐", "f"), ("我妈妈", "f"), ("我小姨", "f"), ("我女儿", "f"), ("我哥哥", "m"), ("我爸爸", "m"),
           ("我舅舅", "m"), ("我儿子", "m"), ("我邻居", ""), ("我同事", ""), ("我最好的朋友", ""),
           ("我表妹", "f"), ("我表哥", "m"), ("我老板", ""), ("我室友", "")),
}  # fmt: skip

PRONOUNS = {
    "en": {"f": ("she", "her", "her"), "m": ("he", "his", "him"), "it": ("it", "its", "it")},
    "zh": {"f": ("她", "她的", "她"), "m": ("他", "他的", "他"), "it": ("它", "它的", "它")},
}

# Cue phrases that announce a change; the sentence that follows starts lower case in English.
CUES = {
    "en": ("Update: ", "Change of plan: ", "Heads up, something changed: ", "Quick update — ",
           "Things have changed: ", "New information: ", "Just so you know, it's different now: "),
    "zh": ("更新一下：", "计划有变：", "跟你说一声，有变化：", "最新消息：", "情况变了：", "提醒一下，现在不一样了："),
}  # fmt: skip

# Reported speech: {x} speaker, {f} the reported sentence (English: lower-cased start).
SPEECH = {
    "en": ("{x} said that {f}", "{x} told me that {f}", "{x} mentioned that {f}", "{x} wrote in the group chat that {f}",
           "{x} called to say that {f}", "According to {x}, {f}"),
    "zh": ("{x}说{f}", "{x}告诉我{f}", "{x}在群里说{f}", "听{x}说，{f}", "{x}打电话来说{f}", "据{x}说，{f}"),
}  # fmt: skip

# Correction of something said earlier; {f} new sentence, {v} new value, {o} old value.
CORRECTIONS = {
    "en": ("Sorry, I meant {v}, not {o}.", "Sorry, my mistake earlier: {f}", "Correction: {f}",
           "Wait, I got that wrong before — {f}", "Let me correct myself: {f}", "Oops, not {o} — {v}.",
           "My bad, it's {v} and not {o}.", "Scratch {o}: {v} is right."),
    "zh": ("不好意思，我说错了，是{v}，不是{o}。", "更正一下：{f}", "刚才说错了，{f}", "纠正一下我之前说的：{f}",
           "哎呀，不是{o}，是{v}。", "抱歉，之前记错了：{f}", "我搞错了，应该是{v}，{o}不对。", "把{o}划掉，{v}才对。"),
}  # fmt: skip

# Question-answer exchanges; {q} question, {v} answer value, {x} the person who answers.
QA = {
    "en": ("Q: {q} A: {v}.", "Me: {q} {x}: {v}.", "I asked {x}, \"{q}\" The answer: {v}.",
           "\"{q}\" — \"{v},\" {x} replied."),
    "zh": ("问：{q} 答：{v}。", "我：{q} {x}：{v}。", "我问{x}：“{q}”回答是：{v}。", "“{q}”{x}回答：“{v}。”"),
}  # fmt: skip

# Long sentences: padding before or after a statement; {f} the statement (English: lower-cased start).
LONG = {
    "en": ("After a long week of meetings, a rainy commute and a birthday dinner that ran far too late, I heard that {f}",
           "While we were planning the spring holidays and arguing about who should bring the salad, {x} mentioned that {f}",
           "In the middle of a phone call that was mostly about the new coffee machine at work and the football results, "
           "{x} let slip that {f}",
           "{F} — {x} brought it up over a long lunch on the terrace, somewhere between the weather and the price of tomatoes.",
           "{F} — that came up in the car on the way back from the lake, after we had talked about music for an hour."),
    "zh": ("忙了一整周的会，又赶上下雨堵车，周五晚上吃完生日饭已经很晚了，这时我才听说{f}",
           "我们在商量春节怎么安排、谁负责买年货的时候，{x}顺口提到{f}",
           "打电话的时候本来一直在聊公司新买的咖啡机和昨晚的球赛，{x}顺便说了一句：{f}",
           "{F}——这是{x}在阳台上吃午饭时说起的，前面还聊了半天天气和菜价。",
           "{F}——从湖边开车回来的路上，我们先聊了一个小时的音乐，后来才说到这件事。"),
}  # fmt: skip

# Two sources that can disagree about the same moment; {s} source, {f} statement (English: lower-cased start).
SOURCES = {
    "en": ("the shared notes", "the summary email", "the group chat", "the planning document", "the minutes of the last meeting",
           "the record in the system", "the old notebook", "the shared spreadsheet", "the printed overview", "the handover notes"),
    "zh": ("共享笔记", "总结邮件", "群聊记录", "计划文档", "上次的会议纪要", "系统里的记录", "那本旧笔记本", "共享表格",
           "打印出来的汇总", "交接记录"),
}  # fmt: skip
SOURCE_FORMS = {
    "en": ("According to {s}, {f}", "{S} says {f}", "{S} has it that {f}", "{S} states that {f}"),
    "zh": ("根据{s}，{f}", "{s}上写的是{f}", "{s}显示{f}", "按{s}的说法，{f}"),
}
WITNESS_FORMS = {
    "en": ("{x} is sure that {f}", "{x} insists that {f}", "{x} swears that {f}", "{x} is certain that {f}"),
    "zh": ("{x}很肯定{f}", "{x}坚持说{f}", "{x}一口咬定{f}", "{x}确信{f}"),
}
CONFIRM = {
    "en": ("{x} confirmed that {f}", "Just to repeat what we know: {f}", "{x} double-checked: {f}"),
    "zh": ("{x}确认了：{f}", "再说一遍，{f}", "{x}核实过了：{f}"),
}

USER = {"en": "the user", "zh": "我"}
