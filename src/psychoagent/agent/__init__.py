"""The cognitive agent, domain-neutral: its loop as a list of named steps, its memory-backed cognition and the
event bus. It imports nothing from the economy; the economy's steps and mind build on it.

    loop.py         Loop: perceive -> recall -> decide -> guard -> act -> reflect, each step replaceable
    contracts.py    Step, Observed, Knowledge: one step of the loop, what an agent perceives, what it believes
    cognition.py    CognitiveAgent: note, encode, recall through Memory.brief, briefing, reflection
    recall.py       persona-modulated cross-layer recall and the bounded working memory
    config.py       CognitiveConfig: every coefficient of the loop (recall, guardrails, look-ahead, talks)
    bus.py          EventBus: typed events, deterministic dispatch, optional JSONL journal
"""
