"""Examples shown at the end of each command's `--help`: the path of the command, then command lines that run."""

from __future__ import annotations

EXAMPLES: dict[str, list[str]] = {
    "": [
        "psychoagent simulate --agents 100 --ticks 240 --seed 42 --out runs/demo --report",
        "psychoagent memory ingest --db mem.db --input events.jsonl",
        "psychoagent demo --embedder hash",
    ],
    "simulate": [
        "psychoagent simulate --agents 100 --ticks 240 --seed 42 --out runs/demo --report",
        "psychoagent simulate --policy persona --scenario rate_hike --ticks 145 --out runs/hike",
        "psychoagent simulate --policy econagent --llm offline --agents 50 --ticks 24 --out runs/econagent",
        "psychoagent simulate --policy persona --firms cognitive --seed 7 --out runs/firms --overwrite",
        "psychoagent simulate --agents 5000 --trace-decisions 500 --out runs/big",
    ],
    "metrics": ["psychoagent metrics runs/demo"],
    "export": [
        "psychoagent export runs/demo --csv",
        "psychoagent export runs/demo --csv --out runs/demo-csv",
    ],
    "experiment": [
        "psychoagent experiment --seeds 3 --scenario policy_black_swan --variants full,no-memory --agents 50 "
        "--out runs/exp",
    ],
    "report": ["psychoagent report runs/demo"],
    "explore": ["psychoagent explore runs/demo", "psychoagent explore --db mem.db --port 8766"],
    "serve": ["psychoagent serve --db mem.db --port 8765", "psychoagent serve --db mem.db --keys keys.toml"],
    "mcp": [
        "psychoagent mcp --db mem.db --namespace alice",
        "psychoagent mcp --db mem.db --http 8766",
    ],
    "appraise": [
        'psychoagent appraise "I lost my job today" --goal "Keep a steady income"',
        "psychoagent appraise --input lines.jsonl --output affects.jsonl",
    ],
    "demo": ["psychoagent demo", "psychoagent demo --embedder hash --db demo.db"],
    "memory": [
        "psychoagent memory ingest --db mem.db --input events.jsonl",
        "psychoagent memory list --db mem.db",
    ],
    "memory ingest": [
        'echo \'{"text": "Alice moved to Paris."}\' | psychoagent memory ingest --db mem.db --input -',
        "psychoagent memory ingest --db mem.db --namespace alice --input events.jsonl --embedder hash",
    ],
    "memory recall": [
        'echo \'{"query": "Where does Alice live?", "k": 3}\' | psychoagent memory recall --db mem.db --input -',
    ],
    "memory list": ["psychoagent memory list --db mem.db --namespace alice"],
    "memory get": ["psychoagent memory get --db mem.db UNIT_ID"],
    "memory history": ["psychoagent memory history --db mem.db UNIT_ID"],
    "memory forget": ["psychoagent memory forget --db mem.db UNIT_ID"],
    "memory brief": ['psychoagent memory brief --db mem.db "Where does Alice live?" --json'],
    "memory conflicts": ["psychoagent memory conflicts --db mem.db --status unresolved"],
    "memory export": ["psychoagent memory export --db mem.db --output backup.jsonl"],
    "memory import": ["psychoagent memory import --db copy.db --input backup.jsonl"],
    "llm": ["psychoagent llm check --llm offline"],
    "llm check": [
        "psychoagent llm check --llm offline",
        "psychoagent llm check --llm http://localhost:8080/v1",
    ],
}
"""Each line is checked against the command's options by a test, so an example never names an option that is gone."""
