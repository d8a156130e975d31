"""An assistant that meets contradictory instructions across sessions: it answers from a conflict-aware briefing,
so the model sees both instructions, which one is current, and a suggested way to handle them.

    python examples/contradictory_instructions.py                # the bundled local model (extra `local`)
    python examples/contradictory_instructions.py --llm offline  # no model: deterministic stand-in
    python examples/contradictory_instructions.py --llm http://localhost:8080/v1
"""

from __future__ import annotations

import argparse

from psychoagent import Memory
from psychoagent.llm import Sampling, get_model

SESSIONS = [
    (
        "2024-05-01T09:00:00Z",
        "Please book my flights in economy class from now on; I want to keep costs down.",
    ),
    ("2024-05-01T09:05:00Z", "My passport number ends in 4471."),
    ("2024-05-08T10:00:00Z", "I'm reading a book about the history of Venice."),
    (
        "2024-05-15T11:00:00Z",
        "Actually, book business class for long-haul flights; my back can't take economy.",
    ),
    ("2024-05-15T11:02:00Z", "I'd like a window seat when possible."),
]
"""What the user said, a week apart: the fourth line contradicts the first for long flights."""
REQUEST = "Book my flight from Frankfurt to Singapore next month."
SYSTEM = (
    "You are a personal assistant. Carry out the user's request using the memory briefing. If the briefing shows "
    "instructions that conflict, follow the most recent one and say in one sentence which earlier instruction it "
    "replaces. Answer in at most three sentences."
)


def main() -> None:
    """Store the sessions, brief the model on the request and print the briefing and its answer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="local", help="local (bundled model), offline, or an endpoint URL")
    parser.add_argument("--embedder", default="e5", help="e5 (default), hash, ...")
    args = parser.parse_args()

    with Memory(namespace="traveller", embedder=args.embedder) as mem:
        for when, text in SESSIONS:
            mem.observe(text, timestamp=when)
        brief = mem.brief(REQUEST, k=4, now="2024-05-20T08:00:00Z")
    print(brief.text)
    model = get_model(args.llm)
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{brief.text}\n\nRequest: {REQUEST}"},
    ]
    answer = model.complete(messages, sampling=Sampling(temperature=0.0, max_tokens=120))
    print(f"\nassistant ({args.llm}): {answer}")


if __name__ == "__main__":
    main()
