"""Natural fact updates: everyday updates and compatible pairs in English and Chinese, written in plain everyday
wording and never used to fit, tune or choose anything (`benchmarks/data/natural_updates.json`, the default).

Same protocol as the conflict benchmark: a fresh default `Memory()` per item; the older fact, six unrelated facts,
the newer fact and six more, an hour apart, stored with `observe(text, timestamp=...)` only; the question is asked
an hour after the last fact. Measured: both facts in `recall(question, k=5)`, the newer ranked above the older,
the pair flagged in `brief(question, k=5)`; for compatible pairs, a conflict record between them or the older one
marked superseded (wrong). With 20 updates and 10 compatible pairs per language, one item is 5 or 10 points:
read the numbers as coarse.

Other sets, written the same way later with other people, places and wordings, are run with ``--data FILE`` and
never written to the docs section: `natural_dev.json` and `natural_dev2.json` are the ones to look at and tune on;
`natural_untouched.json` (64 updates and 64 compatible pairs a language, eight of each kind) is held out and run
only to report. Items of the later sets carry a "kind" (`UPDATE_KINDS`, `COMPATIBLE_KINDS`); the second table
reports each kind in each language.

``--judge-calls`` also counts the calls a configured `LLMPairJudge` would receive: every item's memory gets a
judge over a model that gives no answer, so the scorer's labels stand and every other number is as without it.

Run: ``python -m benchmarks.bench_natural [--embedder hash] [--no-write] [--misses] [--judge-calls] [--data FILE]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._report import write_section
from psychoagent import Memory
from psychoagent.embed import get_embedder
from psychoagent.memory.conflicts.judge import LLMPairJudge

DATA = Path(__file__).resolve().parent / "data" / "natural_updates.json"
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
LANGS = ("en", "zh")
SECTIONS = ("updates", "compatible")
FIELDS = ("lang", "old", "new", "q")
N_FILLERS = 12  # six between the two facts, six after the newer one

UPDATE_KINDS = {
    "replace": "a single-valued attribute takes a new value (home, job, manager, price, phone, car)",
    "cancellation": "an event called off, an engagement ended",
    "ended_arrangement": "a subscription or an arrangement discontinued",
    "new_role_holder": "a new captain, chair or head",
    "arithmetic": "a relative change: doubled, two fewer, an hour later",
    "reported": "passive or reported: 'I heard that', 'was moved to'",
    "no_shared_word": "the two facts share the subject and no other word",
    "value_correction": "the older value corrected",
}
COMPATIBLE_KINDS = {
    "other_attribute": "another attribute of the same thing (departure time and stopover, one fee and another)",
    "other_person": "the same attribute of another person (a relative's job or home)",
    "second_item": "a second item of the same kind (hotel, room, server)",
    "set_member": "an additional member of a set (pet, tool, allergy, language)",
    "origin_residence": "born in one place, living in another",
    "used_to_also": "'used to' and 'now also'",
    "detail": "a detail of the thing the older fact names",
    "elaboration": "more about the same fact",
}
KINDS = {"updates": UPDATE_KINDS, "compatible": COMPATIBLE_KINDS}

Outcome = dict[str, bool]
Row = tuple[str, dict[str, str], Outcome]  # section, item, outcome


class DataError(ValueError):
    """A natural set that does not follow the schema; the message names the item and the field."""


def validate(data: Any, *, require_kind: bool | None = None) -> None:
    """Check a natural set's schema: every item has non-empty lang/old/new/q (and a known kind where kinds are
    required), and each language used has enough distinct fillers. Raise `DataError` on the first problem.

    `require_kind` None requires kinds when any item has one, so a set that names kinds names them for every item.
    """
    if not isinstance(data, dict) or any(s not in data for s in (*SECTIONS, "fillers")):
        raise DataError("the set needs the keys 'updates', 'compatible' and 'fillers'")
    if require_kind is None:
        require_kind = any(isinstance(i, dict) and "kind" in i for s in SECTIONS for i in data[s])
    for section in SECTIONS:
        for idx, item in enumerate(data[section]):
            where = f"{section}[{idx}]"
            if not isinstance(item, dict):
                raise DataError(f"{where}: not an object")
            for field in (*FIELDS, "kind") if require_kind else FIELDS:
                value = item.get(field)
                if not isinstance(value, str) or not value.strip():
                    raise DataError(f"{where}: missing or empty field '{field}'")
            if item["lang"] not in LANGS:
                raise DataError(f"{where}: field 'lang' is {item['lang']!r}, not one of {', '.join(LANGS)}")
            if "kind" in item and item["kind"] not in KINDS[section]:
                raise DataError(f"{where}: field 'kind' is {item['kind']!r}, not a kind of {section}")
    fillers = data["fillers"]
    for lang in sorted({i["lang"] for s in SECTIONS for i in data[s]}):
        if not isinstance(fillers, dict) or len(set(fillers.get(lang, []))) < N_FILLERS:
            raise DataError(f"fillers['{lang}']: fewer than {N_FILLERS} distinct fillers")


def load(path: Path) -> dict[str, Any]:
    """Read and validate a natural set; a schema problem becomes a `DataError` naming the file."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    try:
        validate(data)
    except DataError as exc:
        raise DataError(f"{path.name}: {exc}") from None
    return data


class NoAnswer:
    """A model that answers no structured call (the judge's fallback), so a judge over it only counts its calls."""

    def structured(self, messages: Any, output: Any, *, purpose: str = "", fallback: Any = None) -> Any:
        return fallback


JUDGE_STATS: dict[str, int] = {"calls": 0, "pairs": 0, "writes": 0}
"""What the judges of `run_item(..., judge=True)` were asked, summed over items, and the writes they saw."""


def run_item(
    item: dict[str, str], fillers: list[str], embedder: Any, rng: random.Random, judge: bool = False
) -> Outcome:
    """Store one item in a fresh memory and measure recall, briefing and records (with `judge`, count the calls an
    LLM pair judge would receive into `JUDGE_STATS`)."""
    pool = fillers[:]
    rng.shuffle(pool)
    texts = [item["old"], *pool[:6], item["new"], *pool[6:12]]
    mem = Memory(embedder=embedder)
    referee = LLMPairJudge(NoAnswer()) if judge else None
    mem.pair_judge = referee
    ids = [mem.observe(text, timestamp=START + dt.timedelta(hours=i)).id for i, text in enumerate(texts)]
    old_id, new_id = ids[0], ids[7]
    now = START + dt.timedelta(hours=len(texts) + 1)
    top = [r.unit.id for r in mem.recall(item["q"], k=5, now=now, rng=np.random.default_rng(0))]
    brief = mem.brief(item["q"], k=5, now=now, rng=np.random.default_rng(0))
    pair = {old_id, new_id}
    flagged = any({c.side_a, c.side_b} == pair for c in brief.conflicts)
    recorded = any({c.side_a, c.side_b} == pair for c in mem.conflicts(ids=[old_id]))
    old = mem.get(old_id)
    mem.close()
    if referee is not None:
        JUDGE_STATS["calls"] += referee.stats["calls"]
        JUDGE_STATS["pairs"] += referee.stats["pairs"]
        JUDGE_STATS["writes"] += len(texts)
    return {
        "both": old_id in top and new_id in top,
        "newer_first": new_id in top and (old_id not in top or top.index(new_id) < top.index(old_id)),
        "flagged": flagged,
        "wrong": flagged or recorded or (old is not None and old.invalid_at is not None),
    }


def run_set(data: dict[str, Any], embedder: Any, seed: int = 7, judge: bool = False) -> list[Row]:
    """Run every item of a validated set, updates first, with one shared filler shuffle stream."""
    rng = random.Random(seed)
    return [
        (section, item, run_item(item, data["fillers"][item["lang"]], embedder, rng, judge))
        for section in SECTIONS
        for item in data[section]
    ]


def _pct(outs: list[Outcome], key: str) -> str:
    return f"{100 * np.mean([o[key] for o in outs]):.0f} %" if outs else "–"


def _outs(rows: Iterable[Row], section: str, lang: str) -> list[Outcome]:
    return [o for s, i, o in rows if s == section and lang in (i["lang"], "all")]


def language_table(rows: list[Row]) -> str:
    """Per language (and all): updates with both in top 5, newer first, flagged; compatible pairs wrongly flagged."""
    lines = ["| language | updates | both in top 5 | newer first | flagged | compatible pairs | wrongly flagged |",
             "|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for lang in (*LANGS, "all"):
        upd, comp = _outs(rows, "updates", lang), _outs(rows, "compatible", lang)
        lines.append(f"| {lang} | {len(upd)} | {_pct(upd, 'both')} | {_pct(upd, 'newer_first')} | "
                     f"{_pct(upd, 'flagged')} | {len(comp)} | {_pct(comp, 'wrong')} |")  # fmt: skip
    return "\n".join(lines)


def kind_counts(rows: Iterable[Row]) -> dict[tuple[str, str, str], dict[str, int]]:
    """(section, kind, lang) -> n, newer_first, flagged, wrong: the counts behind the kind table."""
    counts: dict[tuple[str, str, str], dict[str, int]] = {}
    for section, item, out in rows:
        c = counts.setdefault((section, item.get("kind", "?"), item["lang"]), dict.fromkeys(("n", *out), 0))
        c["n"] += 1
        for key, value in out.items():
            c[key] += int(value)
    return counts


def kind_table(rows: list[Row]) -> str:
    """Kind × language: n, newer first and flagged for updates, wrongly flagged for compatible pairs."""
    counts = kind_counts(rows)
    lines = ["| set | kind | language | n | newer first | flagged | wrongly flagged |",
             "|---|---|---|---:|---:|---:|---:|"]  # fmt: skip
    for section in SECTIONS:
        known = list(KINDS[section]) + sorted({k for s, k, _ in counts if s == section} - set(KINDS[section]))
        for kind in known:
            for lang in LANGS:
                c = counts.get((section, kind, lang))
                if c is None:
                    continue

                def pct(key: str, c: dict[str, int] = c) -> str:
                    return f"{100 * c[key] / c['n']:.0f} %"

                upd = section == "updates"
                lines.append(f"| {section} | {kind} | {lang} | {c['n']} | {pct('newer_first') if upd else '–'} | "
                             f"{pct('flagged') if upd else '–'} | {'–' if upd else pct('wrong')} |")  # fmt: skip
    return "\n".join(lines)


def misses(rows: list[Row]) -> list[str]:
    """One line per item that missed: an update not newer-first-and-flagged, a compatible pair flagged."""
    out = []
    for section, item, o in rows:
        bad = o["wrong"] if section == "compatible" else not (o["newer_first"] and o["flagged"])
        if bad:
            out.append(
                f"{section} {item['lang']} {item.get('kind', '')} {o} | {item['old']} -> {item['new']}"
            )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="e5", help="e5 (default) or hash")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md as is")
    parser.add_argument("--misses", action="store_true", help="also print the items that missed")
    parser.add_argument(
        "--judge-calls", action="store_true", help="count the calls a configured LLM pair judge would receive"
    )
    parser.add_argument(
        "--data", type=Path, default=DATA, help="the set to run (default: natural_updates.json)"
    )
    args = parser.parse_args(argv)
    try:
        data = load(args.data)
    except DataError as exc:
        parser.exit(2, f"bench_natural: {exc}\n")
    rows = run_set(data, get_embedder(args.embedder), judge=args.judge_calls)
    table = language_table(rows)
    has_kinds = any("kind" in i for _, i, _ in rows)
    if has_kinds:
        table += "\n\nBy kind:\n\n" + kind_table(rows)
    print(table)
    if args.misses:
        print("\n".join(misses(rows)))
    if args.judge_calls:
        calls, writes = JUDGE_STATS["calls"], max(1, JUDGE_STATS["writes"])
        print(f"judge calls per write: {calls / writes:.3f} ({calls} calls for {JUDGE_STATS['pairs']} pairs, "
              f"{JUDGE_STATS['writes']} writes)")  # fmt: skip
    if not args.no_write and args.data.resolve() == DATA:
        body = (f"Embedder {args.embedder}. {__doc__.split(chr(10) * 2)[1]}\n\n{table}\n\nThe pair scorer is fitted "
                "and chosen on the conflict benchmark's generated scenarios; this set checks how far that carries "
                "to wording no template produced.")  # fmt: skip
        write_section("bench_natural", "Natural fact updates (never tuned on)", body)


if __name__ == "__main__":
    main()
