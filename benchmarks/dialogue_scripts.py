"""Scripted multi-session conversations in which the user gives an instruction and later a contradicting one.

Each conversation: the earlier instruction in the first session, the later one (with or without a cue word such as
"instead") two sessions later, unrelated turns around both, then a final request that needs the instruction.
`latest`/`earlier` are the words that show which instruction an answer follows or mentions (lower case).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Conversation:
    """One scripted conversation; fillers are drawn per conversation from the language's pool."""

    id: str
    lang: str
    domain: str
    earlier: str
    later: str
    request: str
    latest: tuple[str, ...]
    earlier_keys: tuple[str, ...]


def _c(
    lang: str, domain: str, earlier: str, later: str, request: str, latest: str, earlier_keys: str
) -> Conversation:
    return Conversation(
        id=f"{lang}-{domain}", lang=lang, domain=domain, earlier=earlier, later=later, request=request,
        latest=tuple(latest.split("|")), earlier_keys=tuple(earlier_keys.split("|")),
    )  # fmt: skip


CONVERSATIONS = (
    _c("en", "travel", "When you book my flights, always get me a window seat.",
       "My knee surgery means I need an aisle seat on every flight now.",
       "Please book my seat on the Friday flight to Oslo.", "aisle", "window"),
    _c("en", "food", "For team dinners, book a steakhouse — everyone loves the grill.",
       "The team voted: team dinners should be at a vegetarian place from now on.",
       "Book a restaurant for Thursday's team dinner.", "vegetarian", "steak"),
    _c("en", "schedules", "Schedule my weekly one-to-ones on Tuesday mornings.",
       "Move all my one-to-ones to Thursday afternoons, please.",
       "Set up next week's one-to-one with Priya.", "thursday", "tuesday"),
    _c("en", "money", "Keep birthday gifts for my nephews under 30 dollars.",
       "Gifts for the nephews can be up to 60 dollars this year, prices went up.",
       "Pick a birthday gift for my nephew Sam.", "60", "30"),
    _c("en", "work", "Send me the weekly sales report as a one-page summary.",
       "I want the full, detailed weekly sales report with every table.",
       "Prepare this week's sales report for me.", "detailed|every table|full", "one-page|one page"),
    _c("en", "shopping", "When you reorder coffee, buy the Lavazza beans.",
       "Switch our coffee order to the Illy beans.",
       "We're out of coffee, please reorder.", "illy", "lavazza"),
    _c("en", "pets", "Biscuit eats the chicken kibble; order that when we run low.",
       "The vet says Biscuit has to eat the salmon kibble from now on.",
       "Biscuit's food is nearly gone, order more.", "salmon", "chicken"),
    _c("en", "tech", "Back up my photos to the external hard drive every Sunday.",
       "Use the cloud storage for photo backups instead of the hard drive.",
       "It's Sunday, run my photo backup.", "cloud", "hard drive|external drive"),
    _c("en", "documents", "Send contracts to clients as Word documents so they can edit them.",
       "Legal wants every contract sent to clients as a PDF.",
       "Send the new contract to the Brightway client.", "pdf", "word"),
    _c("en", "events", "Book the community hall for the neighbourhood party.",
       "The committee decided the neighbourhood party will be on the rooftop terrace.",
       "Send out the invitations for the neighbourhood party with the venue.", "rooftop", "community hall"),
    _c("en", "health", "Put my gym sessions at 7 am, before work.",
       "With the new baby I can only train at 6 pm.",
       "Add tomorrow's gym session to my calendar.", "6 pm|6pm|18:00", "7 am|7am|07:00"),
    _c("en", "savings", "Transfer 200 dollars to my savings account on the first of each month.",
       "Make the monthly savings transfer 350 dollars.",
       "It's the first of the month, do the savings transfer.", "350", "200"),
    _c("en", "negotiations", "Don't offer more than 12,000 dollars for the van.",
       "I can go up to 14,000 dollars for the van if needed.",
       "The seller wants to hear our offer for the van. What do we offer?", "14,000|14000|14k", "12,000|12000|12k"),
    _c("zh", "travel", "以后帮我订机票都选靠窗的座位。", "我膝盖做了手术，以后坐飞机要靠过道的位子。",
       "帮我订周五去青岛航班的座位。", "过道", "靠窗"),
    _c("zh", "food", "部门聚餐就订烤肉店，大家都爱吃。", "大家投票决定，以后部门聚餐去素食餐厅。",
       "帮我订周四部门聚餐的餐厅。", "素食", "烤肉"),
    _c("zh", "schedules", "我的一对一面谈都排在周二上午。", "一对一面谈以后都放到周四下午吧。",
       "帮我约下周和小王的一对一。", "周四", "周二"),
    _c("zh", "money", "给侄子买生日礼物别超过200元。", "今年侄子的生日礼物可以花到400元，东西都涨价了。",
       "帮我挑一份给侄子的生日礼物。", "400", "200"),
    _c("zh", "work", "每周销售报告给我一页纸的摘要就行。", "每周销售报告我要完整详细的版本，所有表格都要。",
       "把这周的销售报告准备好给我。", "详细|完整|所有表格", "一页"),
    _c("zh", "shopping", "咖啡豆快没了就买云南小粒咖啡。", "咖啡豆换成埃塞俄比亚的耶加雪菲。",
       "咖啡豆没了，帮我下单。", "耶加雪菲|埃塞俄比亚", "云南"),
    _c("zh", "pets", "豆豆吃鸡肉味的狗粮，快吃完了就订。", "兽医说豆豆以后只能吃三文鱼狗粮。",
       "豆豆的狗粮快没了，再订一些。", "三文鱼", "鸡肉"),
    _c("zh", "tech", "每周日把照片备份到移动硬盘。", "照片备份改用网盘，别再用移动硬盘了。",
       "今天周日，帮我备份照片。", "网盘", "移动硬盘"),
    _c("zh", "documents", "合同发给客户用Word格式，方便他们修改。", "法务要求所有合同都以PDF格式发给客户。",
       "把新合同发给明远食品的客户。", "pdf", "word"),
    _c("zh", "events", "小区聚会就订社区活动中心。", "委员会定了，小区聚会放在天台花园办。",
       "发小区聚会的邀请，写上地点。", "天台", "活动中心"),
    _c("zh", "health", "健身安排在每天早上7点，上班前练。", "有了孩子早上没空，健身只能晚上6点。",
       "把明天的健身加到日程里。", "晚上6点|18点|18:00", "早上7点|7点|07:00"),
    _c("zh", "savings", "每月1号往储蓄账户转1000元。", "每月存钱的转账改成1500元。",
       "今天1号了，帮我转存款。", "1500", "1000"),
    _c("zh", "negotiations", "那辆面包车报价别超过8万元。", "面包车最多可以出到9万元。",
       "卖家等我们报价，面包车出多少？", "9万|90000|90,000", "8万|80000|80,000"),
)  # fmt: skip

# Unrelated user turns placed around the instructions (none mentions a key word of any conversation).
FILLERS = {
    "en": ("Remind me to call my mother on Sunday.", "Add milk and eggs to the shopping list.",
           "What's a good podcast about history?", "The plumber is coming on Wednesday afternoon.",
           "Note that Tom's birthday is on the 14th.", "I finished the novel you recommended, it was great.",
           "Can you find the tracking number of the lamp order?", "My sister is visiting next weekend.",
           "Set a reminder to renew the car insurance.", "The printer in the study needs new ink.",
           "Look up the opening hours of the library.", "I walked 12 kilometres yesterday.",
           "Save the recipe for lemon cake I liked.", "The quarterly meeting went well.",
           "Tell me tomorrow's weather in the morning.", "Please file the electricity bill under utilities."),
    "zh": ("提醒我周日给妈妈打电话。", "购物清单里加上牛奶和鸡蛋。", "推荐一个讲历史的播客吧。",
           "水管工周三下午过来。", "记一下，老张的生日是14号。", "你推荐的那本小说我看完了，很好看。",
           "帮我查一下台灯订单的快递单号。", "我妹妹下周末来玩。", "提醒我续交车险。", "书房的打印机没墨了。",
           "查一下图书馆的开放时间。", "我昨天走了一万二千步。", "把我喜欢的那个柠檬蛋糕食谱存下来。",
           "季度会开得挺顺利。", "明早告诉我天气怎么样。", "电费账单归到水电费那一类。"),
}  # fmt: skip

# Control conversations: the later instruction adds to or refines the earlier one and both still hold, so a
# briefing should show both and flag no conflict. `latest` / `earlier_keys` are the words of each instruction.
CONTROLS = tuple(replace(c, id=f"{c.id}-control") for c in (
    _c("en", "travel", "When you book my flights, always get me a window seat.",
       "On long flights I'd also like a vegetarian meal if they offer one.",
       "Please book my seat on the Friday flight to Oslo.", "vegetarian", "window"),
    _c("en", "food", "For team dinners, book a place that takes group reservations.",
       "Oh, and Leila doesn't eat pork, so make sure there's something for her at team dinners.",
       "Book a restaurant for Thursday's team dinner.", "pork|leila", "group"),
    _c("en", "schedules", "Schedule my weekly one-to-ones on Tuesday mornings.",
       "Could you put a short agenda in each one-to-one invite from now on?",
       "Set up next week's one-to-one with Priya.", "agenda", "tuesday"),
    _c("en", "money", "Keep birthday gifts for my nephews under 30 dollars.",
       "Wrap the nephews' presents in plain paper, they hate the cartoon stuff.",
       "Pick a birthday gift for my nephew Sam.", "plain paper|wrap", "30"),
    _c("en", "work", "Send me the weekly sales report as a one-page summary.",
       "Put the report in the shared drive too, so the team can find it.",
       "Prepare this week's sales report for me.", "shared drive", "one-page|one page"),
    _c("en", "shopping", "When you reorder coffee, buy the Lavazza beans.",
       "We're also low on oat milk, get a carton with the next grocery order.",
       "We're out of coffee, please reorder.", "oat milk", "lavazza"),
    _c("en", "pets", "Biscuit eats the chicken kibble; order that when we run low.",
       "Biscuit's flea treatment is due every three months, remind me when it comes up.",
       "Biscuit's food is nearly gone, order more.", "flea", "chicken"),
    _c("en", "tech", "Back up my photos to the external hard drive every Sunday.",
       "Please back up my work documents to the cloud every Friday as well.",
       "It's Sunday, run my photo backup.", "cloud|documents", "hard drive|external drive"),
    _c("en", "documents", "Send contracts to clients as PDF files.",
       "Copy Maria from legal on every contract you send out.",
       "Send the new contract to the Brightway client.", "maria|legal", "pdf"),
    _c("en", "events", "Book the community hall for the neighbourhood party.",
       "For the party, ask the Hendersons if they can bring their barbecue.",
       "Send out the invitations for the neighbourhood party with the venue.", "barbecue|hendersons", "community hall"),
    _c("en", "health", "Put my gym sessions at 7 am, before work.",
       "I'm adding a yoga class on Saturday mornings, please keep that slot free.",
       "Add tomorrow's gym session to my calendar.", "yoga|saturday", "7 am|7am|07:00"),
    _c("en", "savings", "Transfer 200 dollars to my savings account on the first of each month.",
       "Also put 50 dollars into the holiday fund each month.",
       "It's the first of the month, do the savings transfer.", "50|holiday", "200"),
    _c("zh", "travel", "以后帮我订机票都选靠窗的座位。", "坐长途航班的话，麻烦帮我再订一份素食餐。",
       "帮我订周五去青岛航班的座位。", "素食", "靠窗"),
    _c("zh", "food", "部门聚餐订能接待二十人的包间。", "对了，小刘不吃辣，点菜时给她留几道清淡的。",
       "帮我订周四部门聚餐的餐厅。", "不吃辣|清淡", "包间"),
    _c("zh", "schedules", "我的一对一面谈都排在周二上午。", "以后每次一对一的邀请里附上一份简短的议程。",
       "帮我约下周和小王的一对一。", "议程", "周二"),
    _c("zh", "money", "给侄子买生日礼物别超过200元。", "礼物记得用素色的纸包，他们不喜欢卡通图案。",
       "帮我挑一份给侄子的生日礼物。", "素色|包", "200"),
    _c("zh", "work", "每周销售报告给我一页纸的摘要就行。", "报告也顺便传一份到共享盘，方便大家查看。",
       "把这周的销售报告准备好给我。", "共享盘", "一页"),
    _c("zh", "shopping", "咖啡豆快没了就买云南小粒咖啡。", "燕麦奶也快喝完了，下次买菜的时候带一盒。",
       "咖啡豆没了，帮我下单。", "燕麦奶", "云南"),
    _c("zh", "pets", "豆豆吃鸡肉味的狗粮，快吃完了就订。", "豆豆每三个月要驱一次虫，到时候提醒我。",
       "豆豆的狗粮快没了，再订一些。", "驱虫|驱一次虫", "鸡肉"),
    _c("zh", "tech", "每周日把照片备份到移动硬盘。", "工作文件每周五也备份一下，传到网盘上。",
       "今天周日，帮我备份照片。", "工作文件|网盘", "移动硬盘"),
    _c("zh", "documents", "合同发给客户一律用PDF格式。", "每份合同发出去的时候抄送法务的小陈。",
       "把新合同发给明远食品的客户。", "小陈|法务", "pdf"),
    _c("zh", "events", "小区聚会就订社区活动中心。", "聚会那天问问老李家能不能把烧烤架带过来。",
       "发小区聚会的邀请，写上地点。", "烧烤架|老李", "活动中心"),
    _c("zh", "health", "健身安排在每天早上7点，上班前练。", "我周六上午报了瑜伽课，那个时间别安排别的。",
       "把明天的健身加到日程里。", "瑜伽|周六", "早上7点|7点|07:00"),
    _c("zh", "savings", "每月1号往储蓄账户转1000元。", "另外每个月再往旅游基金里存300元。",
       "今天1号了，帮我转存款。", "300|旅游基金", "1000"),
))  # fmt: skip
"""Conversations whose instructions do not contradict: the share flagged as a conflict is the false-alarm rate."""
