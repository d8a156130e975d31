"""The batched write path stores exactly what the per-unit path stored before it was made columnar.

`data/write_golden.json` holds every stored row (vectors as digests) of a fixed input, written by the per-unit
implementation; regenerate it only for a deliberate change of what is stored: `python -m tests.memory.test_write_path`.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psychoagent import Memory
from psychoagent.affect import slots
from psychoagent.embed import HashingEmbedder, hashing, normalise
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory.index import temporal
from psychoagent.memory.write import units as write
from psychoagent.text import tokens
from psychoagent.types import Affect, MemoryUnit

GOLDEN = Path(__file__).parent / "data" / "write_golden.json"
NO_DETECTION = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
T0 = 1_684_000_000.0
"""2023-05-13 17:46:40 UTC: the fixed clock of the fixture."""


def fixture_items() -> list[dict[str, Any]]:
    """Dialogue turns, dates (English and Chinese), whitespace runs, accents, Greek, emoji, Chinese, metadata,
    goals, sources, explicit ids, kinds and a given affect: what the write path treats specially."""
    texts = [
        "Alice: I moved to Berlin last Saturday.",
        "Bob: How was the ice cream?",
        "Alice: Super good!",
        "The user set the equipment budget to 2000 yuan.",
        "The user raised the budget from 1000 to 3000 yuan on 13 May, 2023.",
        "用户把预算从1000元提高到3000元。",
        "上周我们在北京开会，会议改到2023年5月20日。",
        "Tabs\tand   runs of\n\nwhitespace  stay one feature",
        "Ωμέγα ΣΟΦΟΣ and naïve café résumé",
        "emoji 🎉 party 🎉 in 2024-01-05",
        "Melanie: We painted a sunset two weeks ago.",
        "Caroline: The meeting is now at 3 pm tomorrow.",
        "Price of gold rose; rent is due next week.",
        "x",
        "ab",
        "  leading and trailing  ",
        "I prefer short answers.",
        "数字１２３４和全角字符",
        "event 1999: w1 w2 w3 w22 w333",
    ]
    items: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        items.append({"text": text, "timestamp": T0 + 600 * i + (86_400 * 3 if i > 9 else 0)})
    items[3].update(id="budget-1", metadata={"topic": "budget", "n": 2, "nested": {"a": [1, 2.5, None]}})
    items[4].update(goals=["Keep the total budget under 2000 yuan"], sources=["budget-1"])
    items[12].update(kind="semantic", affect=Affect(valence=-1, arousal=2, conflict_intensity=2,
                                                    conflict_parties=["a", "b"], reason="given"))  # fmt: skip
    items.append({"text": "Keep the total budget under 2000 yuan", "kind": "goal", "timestamp": T0 - 60})
    return items


def build(path: Path, batched: bool = True) -> Memory:
    mem = Memory(
        path, namespace="n", embedder=HashingEmbedder(64), appraiser=None, affect_config=NO_DETECTION
    )
    items = fixture_items()
    if batched:
        mem.observe_many(items[:7])
        mem.observe_many(items[7:])
    else:
        for item in items:
            mem.observe(**item)
    return mem


def dump(path: Path) -> dict[str, list[list[Any]]]:
    """Every row of every table of a store file, in key order; vector blobs as sha256 digests."""
    conn = sqlite3.connect(path)
    out: dict[str, list[list[Any]]] = {}
    for table, order in (("units", "pk"), ("units_fts", "rowid"), ("vectors", "model, content_hash"),
                         ("edges", "src, dst, type"), ("conflicts", "id"), ("meta", "key")):  # fmt: skip
        cols = "rowid, *" if table == "units_fts" else "*"
        rows = conn.execute(f"SELECT {cols} FROM {table} ORDER BY {order}").fetchall()
        out[table] = [
            [hashlib.sha256(v).hexdigest() if isinstance(v, bytes) else v for v in row] for row in rows
        ]
    conn.close()
    return out


def test_stored_rows_match_the_per_unit_implementation(tmp_path: Path) -> None:
    build(tmp_path / "m.db").close()
    assert dump(tmp_path / "m.db") == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_batched_and_single_writes_store_the_same_rows(tmp_path: Path) -> None:
    build(tmp_path / "a.db").close()
    build(tmp_path / "b.db", batched=False).close()
    a, b = dump(tmp_path / "a.db"), dump(tmp_path / "b.db")
    for rows in (a["units"], b["units"]):  # the change counter stamps each transaction: one per batch or unit
        for row in rows:
            row.pop()
    assert a == b


QUERIES = ["Where did Alice move?", "budget 3000 yuan", "预算", "meeting date", "ice cream", "What happened in May 2023?",
           "When did Melanie paint a sunset?", "whitespace features", "café", "gold price rent"]  # fmt: skip


def hits(mem: Memory) -> list[list[tuple[str, float]]]:
    return [
        [(h.unit.id, round(h.score, 9)) for h in mem.recall(q, k=8, now=T0 + 10 * 86_400)] for q in QUERIES
    ]


@pytest.mark.parametrize("detect", [False, True])
def test_recall_after_writes_equals_recall_after_reopening(tmp_path: Path, detect: bool) -> None:
    """The in-memory index the write path appends to ranks exactly like the one loaded from the file."""
    config = None if detect else NO_DETECTION
    mem = Memory(tmp_path / "m.db", namespace="n", embedder=HashingEmbedder(64), affect_config=config)
    mem.recall("warm up", k=1)  # the index exists before the writes, so they are appended to it
    mem.observe_many(fixture_items()[:7])
    mem.observe_many(fixture_items()[7:])
    with sqlite3.connect(tmp_path / "m.db") as src, sqlite3.connect(tmp_path / "copy.db") as dst:
        src.backup(dst)  # a snapshot before recall counts accesses (which change later scores)
    written = hits(mem)
    mem.close()
    reopened = Memory(tmp_path / "copy.db", namespace="n", embedder=HashingEmbedder(64), affect_config=config)
    assert hits(reopened) == written
    assert any(h for h in written)


if __name__ == "__main__" and "--write" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "m.db").close()
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(
            json.dumps(dump(Path(tmp) / "m.db"), ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
        )
        print("wrote", GOLDEN)


# -- the columnar parts against their per-text definitions ------------------------------------------------------
_ODD_TEXTS = ["", "a", "ab", "abc", "  x  y\t\tz\n", "Ωμέγα ΣΟΦΟΣ naïve", "İstanbul ǅ ß ﬃ", "\u3000全角\u3000\u3000空格",
              "a\u00a0\u00a0b", "x\U0001f600y\U00020000z", "日本語とEnglish混合、한국어", "it's o'clock _under_", "١٢٣٤ ٥"]  # fmt: skip


def reference_hash_vectors(texts: list[str], dim: int) -> np.ndarray:
    """The hashing embedder as it was defined per text: features as strings, zlib CRC32, float64 bincount."""
    rows, hashes = [], []
    for row, text in enumerate(texts):
        low = text.lower()
        feats = [f"w:{w}" for w in re.findall(r"[\w']+", low)]
        compact = re.sub(r"\s+", " ", low)
        feats += [f"c:{compact[i : i + 3]}" for i in range(max(0, len(compact) - 2))]
        cjk = "".join(re.findall(r"[\u3400-\u9fff\uf900-\ufaff]", low))
        feats += [f"b:{cjk[i : i + 2]}" for i in range(max(0, len(cjk) - 1))]
        rows += [row] * len(feats)
        hashes += [zlib.crc32(f.encode("utf-8")) for f in feats]
    h, r = np.asarray(hashes, dtype=np.int64), np.asarray(rows, dtype=np.int64)
    flat = np.bincount(
        r * dim + h % dim, weights=np.where((h >> 16) & 1, 1.0, -1.0), minlength=len(texts) * dim
    )
    return normalise(flat.reshape(len(texts), dim).astype(np.float32))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet="ab Σς\t\n\u3000\u00a0中文字éŁ🎉\U00020001_'1-Kİ", max_size=14), max_size=12)
)
def test_hash_embedder_columns_equal_the_per_text_definition(texts: list[str]) -> None:
    texts = [*texts, *_ODD_TEXTS]
    assert np.array_equal(HashingEmbedder(64).embed_documents(texts), reference_hash_vectors(texts, 64))


def test_hash_embedder_words_of_every_length() -> None:
    """Words are hashed in one vectorised step per character position, the longest one by one: lengths around
    that bound, non-ASCII letters and a text that is one long word."""
    letters = "aé中\U00020000ßk"
    texts = [
        " ".join(letters[(i + j) % len(letters)] * (j + 1) for j in range(i % 7)) + " x" * (i % 3)
        for i in range(40)
    ]
    texts += ["y" * n for n in (23, 24, 25, 26, 60)] + [
        "q" * 24 + " " + "é" * 25 + " " + "中" * 30,
        "z" * 5_000,
    ]
    assert np.array_equal(HashingEmbedder(64).embed_documents(texts), reference_hash_vectors(texts, 64))


def test_hash_embedder_on_the_fixture_and_a_lone_surrogate() -> None:
    texts = [item["text"] for item in fixture_items()] + [f"event {i}: w{i} w{i * 7}" for i in range(300)]
    assert np.array_equal(HashingEmbedder(384).embed_documents(texts), reference_hash_vectors(texts, 384))
    with pytest.raises(UnicodeEncodeError):  # as the per-text definition: the feature cannot be encoded
        HashingEmbedder(64).embed_documents(["ok", "a\ud800b"])


def test_character_tables_agree_with_re() -> None:
    """The code point tables the columnar embedder uses say what `re`'s \\s and [\\w'] say, across the BMP."""
    words, spaces = hashing._word_chars(), hashing._whitespace()
    for c in range(0x10000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        ch = chr(c)
        assert bool(words[c]) == bool(re.fullmatch(r"[\w']", ch)), hex(c)
        assert (c <= 0x3000 and bool(spaces[c])) == bool(re.fullmatch(r"\s", ch)), hex(c)


_TIME_TEXTS = ["yesterday", "Today!", "last  week", "LAST WEEK", "next Monday", "on sunday", "3 days ago", "a few weeks ago",
               "recently", "Just now", "the other day", "May 2023", "may, 2023", "2023-05-13", "in 1999", "w1999",
               "2023年5月", "上周", "昨天下午", "१९९९", "１２３４年", "Ｙesterday", "this evening", "past summer", "nothing here"]  # fmt: skip


def reference_mentions_time(text: str) -> bool:
    low = text.lower()
    return bool(
        temporal._RELATIVE.search(low) or temporal._ZH_RELATIVE.search(text) or temporal._MONTH_YEAR.search(low)
        or temporal._YEAR.search(low) or temporal._ISO.search(low) or temporal._ZH_DATE.search(text)
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_TIME_TEXTS, " ", "x", "day", "ago", "2", "0", "年", "Mar"]), max_size=6))
def test_time_prefilter_keeps_every_answer(parts: list[str]) -> None:
    for text in ("".join(parts), " ".join(parts), *_TIME_TEXTS, *(i["text"] for i in fixture_items())):
        assert temporal.mentions_time(text) == reference_mentions_time(text), text


_SLOT_TEXTS = ["The BUDGET is 3000", "prices rose", "Prefers short answers", "I PREFER tea and cake", "my favorite color is red",
               "Favourite Colour: blue", "number of guests is 12", "He is based in Paris", "due date moved to Friday",
               "costume party", "Fees", "no attribute at all", "deadlines", "a hotel-restaurant", "moved  to Berlin"]  # fmt: skip


def test_slot_prefilter_keeps_every_answer() -> None:
    texts = [*_SLOT_TEXTS, *(i["text"] for i in fixture_items()), *(t.upper() for t in _SLOT_TEXTS)]
    for text in texts:
        if slots._states_nothing(text):
            assert slots._ANY_EN.search(text) is None and slots._PREFER_EN.search(text) is None, text
    assert sum(not slots._states_nothing(t) for t in texts) >= len(_SLOT_TEXTS)


def test_units_built_without_validation_equal_validated_ones(tmp_path: Path) -> None:
    mem = build(tmp_path / "m.db")
    for unit in mem.units():
        again = MemoryUnit.model_validate(unit.model_dump())
        assert again == unit and again.model_dump_json() == unit.model_dump_json()
    assert write.neutral_affect() == Affect.neutral()
    assert write.neutral_affect().model_fields_set == Affect.neutral().model_fields_set


def test_bare_texts_built_in_columns_equal_units_built_one_by_one() -> None:
    """A batch of bare texts without an appraiser takes the columnar path; each unit equals `build_unit`'s for the
    same text and time, validated or not, with the same fields set."""
    texts = [item["text"] for item in fixture_items()]
    a = Memory(embedder=HashingEmbedder(64), appraiser=None, affect_config=NO_DETECTION)
    b = Memory(embedder=HashingEmbedder(64), appraiser=None, affect_config=NO_DETECTION)
    columns = write.build_units(a._ns, [(t, write._NO_ARGS) for t in texts], [None] * len(texts))
    single = [
        write.build_unit(b._ns, t, {"timestamp": u.created_at}) for t, u in zip(texts, columns, strict=True)
    ]
    assert columns == single and len({u.id for u in columns}) == len(texts)
    for got, want in zip(columns, single, strict=True):
        assert got.model_dump_json() == want.model_dump_json()
        assert (
            got.model_fields_set == want.model_fields_set
            and got.affect.model_fields_set == want.affect.model_fields_set
        )
        assert MemoryUnit.model_validate(got.model_dump()) == got
        assert got.affect.conflict_parties is not columns[0].affect.conflict_parties or got is columns[0]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab Σ\t\n\u3000中文字用户预算éŁ_'1-", max_size=30))
def test_keyword_tokens_survive_joining_and_splitting(text: str) -> None:
    """The write path hands the index each unit's tokens and stores them joined by spaces (the FTS5 text); the
    index loaded from the file splits that text again, so tokens must hold no whitespace."""
    for t in (text, *(i["text"] for i in fixture_items())):
        assert " ".join(tokens(t)).split() == tokens(t)


def test_concurrent_first_reads_index_the_written_batches_once() -> None:
    """Recalls in several threads right after a write: the deferred postings are built once, completely."""
    from concurrent.futures import ThreadPoolExecutor

    mem = Memory(embedder=HashingEmbedder(64), appraiser=None, affect_config=NO_DETECTION)
    for start in range(0, 4_000, 1_000):
        mem.observe_many([f"event {i}: w{i % 97} w{i % 13} shared" for i in range(start, start + 1_000)])
    index = mem._index()
    with ThreadPoolExecutor(8) as pool:
        sizes = list(pool.map(lambda _: len(index.keywords), range(32)))
    assert sizes == [4_000] * 32
    w5 = sum(1 for i in range(4_000) if 5 in (i % 97, i % 13))
    assert index.keywords.frequency("share") == 4_000 and index.keywords.frequency("w5") == w5
    assert len(index.conversation) == 4_000


def test_store_only_writes_and_recalls_parse_no_slots() -> None:
    """Without appraisal and detection nothing reads the slot index, so no unit's slots are parsed until it is."""
    mem = Memory(embedder=HashingEmbedder(64), appraiser=None, affect_config=NO_DETECTION)
    mem.observe_many([f"The budget of project {i} is {1000 + i} yuan" for i in range(50)])
    assert mem.recall("budget of project 7", k=3)
    state = mem.affect_state_of_namespace()
    assert len(state.slot_pending) == 50 and not state.any_positive
    assert sum(len(v) for v in state.slots.values()) >= 50 and not state.slot_pending  # parsed on this read
