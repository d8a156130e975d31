"""What `--policy econagent` asks a language model: calls, prompt tokens (all, and new after llama.cpp's prefix
reuse) and completion tokens per household-month, counted with SmolLM2's tokenizer and no generation.

A stand-in backend (grammar mode, like the local model) formats each request with SmolLM2's chat template,
tokenizes it with the model's own vocabulary (`vocab_only`, nothing is generated), counts the tokens a llama.cpp
KV cache would hold from the previous request (the shared beginning) and answers a fixed valid object. So the
counts are the real prompt sizes of a run; the answers, and so the economy, are not the model's.

``python -m benchmarks.bench_econagent_calls [--agents 50 --ticks 24 --seed 42]`` writes its section of
docs/benchmarks.md. Run against an older tree (``PYTHONPATH=OLD/src``) with ``--no-write`` for a before/after.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from psychoagent.econ.model import EconomyModel
from psychoagent.llm import LLMClient
from psychoagent.llm.contracts import Completion

ANSWERS = {
    "Propensities": '{"work": 0.8, "consumption": 0.5}',  # valid before and after the compact answer
    "Reflection": '{"text": "Work paid, so I keep my habits."}',
}


class TokenCounter:
    """Counts what a llama.cpp model would read and write for each request; answers a fixed valid object."""

    name = "token-counter"

    def __init__(self) -> None:
        from llama_cpp import Llama

        from psychoagent.llm.local import bundled_model_path

        self.vocab = Llama(model_path=str(bundled_model_path()), vocab_only=True, verbose=False)
        self.held: list[int] = []
        self.tally: dict[str, dict[str, int]] = {}

    def modes(self) -> tuple[str, ...]:
        return ("grammar", "prompt")

    def tokens(self, text: str) -> list[int]:
        return list(self.vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    async def acomplete(self, request: Any) -> Completion:
        chat = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in request.messages)
        prompt = self.tokens(chat + "<|im_start|>assistant\n")
        reused = next((n for n, (a, b) in enumerate(zip(self.held, prompt, strict=False)) if a != b),
                      min(len(self.held), len(prompt)))  # fmt: skip
        title = str((request.schema or {}).get("title", ""))
        text = ANSWERS.get(title, "{}")
        answer = self.tokens(text)
        self.held = prompt + answer
        t = self.tally.setdefault(title, {"calls": 0, "prompt": 0, "new": 0, "completion": 0})
        t["calls"] += 1
        t["prompt"] += len(prompt)
        t["new"] += len(prompt) - reused
        t["completion"] += len(answer)
        return Completion(
            text=text, prompt_tokens=len(prompt), completion_tokens=len(answer), model=self.name
        )


def count(agents: int, ticks: int, seed: int) -> dict[str, Any]:
    """Run the econagent policy with the counter as its model; totals and per household-month."""
    from psychoagent.econ.cognitive.econagent import EconAgentPolicy

    backend = TokenCounter()
    policy = EconAgentPolicy(client=LLMClient(backend))  # type: ignore[arg-type]
    start = time.perf_counter()
    EconomyModel(seed=seed, policy=policy, households=agents).run(ticks)
    months = agents * ticks
    total = {k: sum(t[k] for t in backend.tally.values()) for k in ("calls", "prompt", "new", "completion")}
    return {"agents": agents, "ticks": ticks, "seed": seed, "by_schema": backend.tally, "total": total,
            "per_household_month": {k: v / months for k, v in total.items()},
            "seconds": time.perf_counter() - start}  # fmt: skip


def table(result: dict[str, Any]) -> str:
    """Markdown rows: one per schema plus the total."""
    rows = ["| schema | calls | prompt tokens | new prompt tokens | completion tokens | calls per household-month |",
            "|---|---|---|---|---|---|"]  # fmt: skip
    months = result["agents"] * result["ticks"]
    for name, t in [*sorted(result["by_schema"].items()), ("total", result["total"])]:
        rows.append(f"| {name} | {t['calls']:,} | {t['prompt']:,} | {t['new']:,} | {t['completion']:,} | "
                    f"{t['calls'] / months:.3f} |")  # fmt: skip
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--ticks", type=int, default=24)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-write", action="store_true", help="print only, leave docs/benchmarks.md alone")
    args = parser.parse_args(argv)
    result = count(args.agents, args.ticks, args.seed)
    print(table(result))
    print(json.dumps(result["per_household_month"]))
    if not args.no_write:
        from benchmarks._report import write_section

        body = (
            f"`--policy econagent`, {args.agents} households x {args.ticks} months, seed {args.seed}, default "
            "settings, prompts tokenized with SmolLM2's vocabulary (nothing generated; fixed answers, so the "
            "economy is not the model's). New prompt tokens: those after the beginning shared with the previous "
            "request, which llama.cpp keeps in its KV cache and does not evaluate again.\n\n" + table(result)
        )
        write_section("bench_econagent_calls", "econagent: what a language model is asked", body,
                      after="bench_llm")  # fmt: skip


if __name__ == "__main__":
    main()
