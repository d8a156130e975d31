"""`python -m benchmarks.conflict_gen --seed 0 --out FILE.jsonl --split dev|test|all`: write scenarios as JSONL."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from .build import HELD_OUT_DOMAINS, HELD_OUT_FAMILIES, generate, split


def main(argv: list[str] | None = None) -> None:
    """Generate, split and write one JSON object per line; print counts per split, language and label."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.conflict_gen", description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    args = ap.parse_args(argv)
    items = generate(args.seed)
    dev, test = split(items)
    chosen = {"dev": dev, "test": test, "all": items}[args.split]
    dev_ids = {i.id for i in dev}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for item in chosen:
            row = item.to_dict()
            row["split"] = "dev" if item.id in dev_ids else "test"
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = Counter((i.lang, i.label) for i in chosen)
    print(f"{len(chosen)} items ({args.split}) -> {args.out}")
    print("held-out families:", ", ".join(sorted(HELD_OUT_FAMILIES)))
    print("held-out domains:", ", ".join(sorted(HELD_OUT_DOMAINS)))
    for (lang, label), n in sorted(counts.items()):
        print(f"  {lang} {label}: {n}")


if __name__ == "__main__":
    main()
