"""Identity check of the economy's run files: fixed-seed runs whose files must not change under a refactor.

Runs each case through the command line into DIR/<case>/ and prints one sha256 per run file; compare two
DIRs with `--compare OTHER` (exit 1 when a file differs). Cases: cognitive 30 x 24 with cognitive firms, the
same on 2 local shards, persona 30 x 24, econagent offline 20 x 12.

    python -m benchmarks.econ_identity DIR [--compare OTHER]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

CASES: dict[str, list[str]] = {
    "cognitive_firms": ["--policy", "cognitive", "--agents", "30", "--ticks", "24", "--firms", "cognitive"],
    "cognitive_shards": ["--policy", "cognitive", "--agents", "30", "--ticks", "24", "--shards", "2"],
    "persona": ["--policy", "persona", "--agents", "30", "--ticks", "24"],
    "econagent": ["--policy", "econagent", "--agents", "20", "--ticks", "12", "--llm", "offline"],
}
"""Each case's `psychoagent simulate` arguments (seed 7 added to all)."""

FILES = ("macro.csv", "agents.csv", "assets.csv", "events.jsonl")
"""The run files compared, as `psychoagent export --csv` writes them (the same bytes as the CSV writer of earlier
versions, so digests taken before the run files became Parquet still compare); config.json names paths and
versions, so it is left out."""


def run(out: Path) -> dict[str, str]:
    """Run every case into `out` and return {case/file: sha256}."""
    digests: dict[str, str] = {}
    for name, args in CASES.items():
        folder = out / name
        cmd = [sys.executable, "-m", "psychoagent", "simulate", *args, "--seed", "7", "--out", str(folder)]
        subprocess.run([*cmd, "--overwrite"], check=True, stdout=subprocess.DEVNULL)
        export = [sys.executable, "-m", "psychoagent", "export", str(folder), "--csv"]
        subprocess.run(export, check=True, stdout=subprocess.DEVNULL)
        for f in FILES:
            path = folder / f
            if path.exists():
                digests[f"{name}/{f}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder for the runs")
    ap.add_argument("--compare", type=Path, help="a folder of earlier runs to compare against")
    args = ap.parse_args()
    digests = run(args.out)
    for key, digest in sorted(digests.items()):
        print(f"{digest[:16]}  {key}")
    if args.compare is None:
        return 0
    differ = [k for k in digests if not (args.compare / k).exists()
              or hashlib.sha256((args.compare / k).read_bytes()).hexdigest() != digests[k]]  # fmt: skip
    for k in differ:
        print(f"DIFFERS: {k}")
    print("identical" if not differ else f"{len(differ)} file(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
