"""A deterministic retrieval fixture in English and Chinese: facts, hard distractors and queries with known answers.

Every person has one fact per kind (residence, job, pet, hobby, allergy, support ticket). Distractors mention the
same names and values in unrelated statements, so a query must match both who and what. Queries are paraphrases
("Where does Alice live now?"), value look-ups ("Who moved to Lisbon?") and keyword-heavy ones (ticket codes, pet
names) and exact serial numbers that embeddings handle poorly. The tables are data/retrieval_fixture.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

TABLE: dict[str, dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "retrieval_fixture.yaml").read_text(encoding="utf-8")
)
"""Per language: value pools, chatter, a person's facts and the questions about them (data/retrieval_fixture.yaml)."""


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
        table = TABLE[lang]
        names, cities, jobs, pets = table["names"], table["cities"], table["jobs"], table["pets"]
        hobbies, foods, chatter = table["hobbies"], table["foods"], table["chatter"]
        for i, n in enumerate(names):
            city, (job, company), pet = cities[i], jobs[i % 10], pets[(i * 3) % 10]
            pname, hobby, food = table["pet_names"][i], hobbies[(i * 7) % 10], foods[(i * 3 + 1) % 10]
            device, problem = table["devices"][i % 5]
            code = f"TK-{4000 + i * 37 + (0 if lang == 'en' else 9000)}"
            serial = f"{int(rng.integers(100_000, 999_999))}"
            p = f"{lang}{i}"
            values = {"n": n, "city": city, "job": job, "company": company, "pet": pet, "pname": pname,
                      "hobby": hobby, "food": food, "code": code, "device": device, "problem": problem,
                      "serial": serial}  # fmt: skip
            for kind, template in table["facts"].items():
                add(f"{p}-{kind}", template.format(**values))
            qs = [(q["about"], q["text"].format(**values), q["tests"]) for q in table["questions"]]
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
