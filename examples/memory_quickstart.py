"""Memory in ten minutes: store events, recall them with every score part, see a conflict kept side by side, ask
what was true at a past time, and forget.

    python examples/memory_quickstart.py            # in memory, the packaged e5 embedder
    python examples/memory_quickstart.py --embedder hash --db quickstart.db
"""

from __future__ import annotations

import argparse

from psychoagent import Memory


def main() -> None:
    """Run the tour and print what each step returns."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="SQLite file (default: in memory)")
    parser.add_argument("--embedder", default="e5", help="e5 (default), hash, static, ...")
    args = parser.parse_args()

    with Memory(args.db, namespace="alice", embedder=args.embedder) as mem:
        mem.observe("Alice lives in Berlin.", timestamp="2024-01-10T09:00:00Z")
        mem.observe("Alice prefers short answers.", timestamp="2024-01-11T09:00:00Z")
        flight = mem.observe("Alice's flight to Rome leaves on 3 June.", timestamp="2024-02-01T09:00:00Z")
        mem.observe("Alice moved to Paris in March.", timestamp="2024-03-20T09:00:00Z",
                    goals=["Keep Alice's address up to date"])  # fmt: skip

        print("recall: Where does Alice live?")
        for hit in mem.recall("Where does Alice live?", k=3, now="2024-04-01T00:00:00Z"):
            state = "current" if hit.unit.is_current else "superseded"
            parts = ", ".join(f"{name} {value:.2f}" for name, value in hit.parts.items())
            print(f"  {hit.score:.3f}  {hit.unit.content}  [{state}; {parts}]")

        brief = mem.brief("Where does Alice live?", k=3, now="2024-04-01T00:00:00Z")
        print("\nbriefing:\n" + brief.text)
        for record in mem.conflicts():
            a, b = mem.get(record.side_a), mem.get(record.side_b)
            print(f"conflict ({record.kind}): {a.content if a else '?'}  <->  {b.content if b else '?'}")

        print("\nwhat was true on 1 February:")
        for hit in mem.recall("Where does Alice live?", k=1, at="2024-02-01T12:00:00Z"):
            print(f"  {hit.unit.content}")

        mem.forget(flight.id, reason="the user asked")
        print(f"\nforgotten: {flight.id}; recall now returns",
              [h.unit.content for h in mem.recall("When does Alice fly to Rome?", k=1)])  # fmt: skip


if __name__ == "__main__":
    main()
