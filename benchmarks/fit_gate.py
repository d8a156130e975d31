"""Fit the structural gate's head (`psychoagent.memory.conflicts.gate`) on dev pairs only, per embedder family.

Pairs: the DEV scenarios of `benchmarks/conflict_gen` (updates and contradictions can conflict; elaborations,
other-entity pairs and same-person facts of other domains cannot; restatements are left out: the same attribute
with the same value is the scorer's to read), `benchmarks/data/natural_dev.json`, the gate's own dev examples
`benchmarks/data/gate_dev.json` and `benchmarks/data/meaning_dev.json`, and another dev set when given (`--more`). The pairs a rule blocks are
reported, not fitted. The head is a binary logistic regression (L2, balanced classes) over the scalar features and
the attribute phrases' elementwise product and sum (`--vector-families`; the others read the scalars alone); `block` is the highest
grid threshold that keeps at least --keep of the dev conflicts written in plain words (natural, gate and meaning
dev sets; `--keep-on all`: every dev conflict) in the leave-kind-out predictions, `sure` the lowest that passes at
most --leak of the dev compatible pairs. Reported: leave-kind-out pass rates per kind and language.

    python -m benchmarks.fit_gate [--more /path/natural_dev2.json] [--out src/psychoagent/data/conflict_gate.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from benchmarks.conflict_gen import generate, split
from benchmarks.pair_data import cross_pairs
from benchmarks.pair_vectors import embed_all
from psychoagent.embed import get_embedder
from psychoagent.memory.conflicts.gate import GATE_FEATURES, Exemplars, Gate, blocked_by_rules
from psychoagent.memory.conflicts.gate import lifted as gate_lifted
from psychoagent.memory.conflicts.structure import attribute_phrase

DATA = Path(__file__).resolve().parent / "data"
OUT = Path(__file__).resolve().parents[1] / "src" / "psychoagent" / "data" / "conflict_gate.json"
TEMPERATURE = {"e5-small": 0.02, "hash": 0.1}
"""Softmax temperature over the declared attributes' cosines: about the spread of each embedder's phrase cosines
(e5 0.85-0.95, hash 0-0.5)."""
GRID = tuple(round(x, 2) for x in np.arange(0.02, 0.96, 0.02))
Pair = tuple[str, str, int, str, str]  # older, newer, can conflict, kind, language


def dev_pairs(more: list[Path], seed: int) -> list[Pair]:
    """Every dev pair the head learns from (see the module)."""
    dev, _ = split(generate(seed))
    pairs: list[Pair] = [
        (i.old, i.new, int(i.conflicting), i.family, i.lang) for i in dev if i.family != "restatement"
    ]
    pairs += [(o, n, 0, "cross_domain", "zh" if _zh(n) else "en") for o, n, _ in cross_pairs(dev, 600, seed)]
    for path in [
        DATA / "natural_dev.json",
        DATA / "natural_dev2.json",
        DATA / "gate_dev.json",
        DATA / "meaning_dev.json",
        *more,
    ]:
        if not path.exists():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        for label, part in ((1, "updates"), (0, "compatible")):
            for item in data[part]:
                kind = f"{path.stem}:{item.get('kind', part)}"
                pairs.append((item["old"], item["new"], label, kind, item["lang"]))
    return pairs


def _zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def table(pairs: list[Pair], family: str, gate: Gate) -> np.ndarray:
    """GATE_FEATURES rows of the pairs, the attribute phrases and sentences embedded by the family's embedder."""
    name = "e5" if family == "e5-small" else "hash-256"
    embedder = get_embedder(name)
    phrases = sorted({attribute_phrase(t) for o, n, *_ in pairs for t in (o, n)})
    multi = [t for ts in gate.kinds["multi"].values() for t in ts]
    single = [t for ts in gate.kinds["single"].values() for t in ts]
    texts = sorted({t for o, n, *_ in pairs for t in (o, n)})
    vecs = embed_all([*phrases, *multi, *single, *texts], name)
    floor = float(getattr(embedder, "similarity_floor", 0.0) or 0.0)
    ex = Exemplars(
        np.stack([vecs[t] for t in (*multi, *single)]).astype(np.float64),
        np.arange(len(multi) + len(single)) < len(multi),
        gate.temperature,
    )
    a = np.stack([vecs[attribute_phrase(o)] for o, *_ in pairs]).astype(np.float64)
    b = np.stack([vecs[attribute_phrase(n)] for _, n, *_ in pairs]).astype(np.float64)
    dense = [float(np.clip((float(vecs[o] @ vecs[n]) - floor) / (1 - floor), 0, 1)) for o, n, *_ in pairs]
    return gate.table([(o, n, d) for (o, n, *_), d in zip(pairs, dense, strict=True)], a, b, ex)


def logistic(x: np.ndarray, y: np.ndarray, l2: float) -> dict[str, Any]:
    """Binary logistic regression on standardised features, balanced classes, L2 (scipy L-BFGS)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    w = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9)) / len(y)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        logit = z @ theta[:-1] + theta[-1]
        p = 1 / (1 + np.exp(-logit))
        eps = 1e-12
        value = (
            -np.sum(w * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))) + l2 * theta[:-1] @ theta[:-1]
        )
        g = w * (p - y)
        return float(value), np.concatenate([z.T @ g + 2 * l2 * theta[:-1], [g.sum()]])

    theta = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B").x
    return {
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "coef": theta[:-1].tolist(),
        "intercept": float(theta[-1]),
    }


def predict(head: dict[str, Any], x: np.ndarray) -> np.ndarray:
    z = (x - np.asarray(head["mean"])) / np.asarray(head["scale"])
    return np.asarray(1 / (1 + np.exp(-(z @ np.asarray(head["coef"]) + head["intercept"]))))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--more", type=Path, action="append", default=[], help="another dev set (natural format)")
    ap.add_argument("--l2", type=float, default=0.1)
    ap.add_argument(
        "--vector-families",
        default="e5-small",
        help="families whose head also reads the phrase vectors' product and sum (hash: scalars only, "
        "its phrase vectors carry words, not meaning)",
    )
    ap.add_argument("--keep-on", choices=("written", "all"), default="written")
    ap.add_argument("--keep", type=float, default=0.99, help="share of dev conflicts `block` must keep")
    ap.add_argument("--leak", type=float, default=0.02, help="share of dev compatible pairs `sure` may pass")
    ap.add_argument("--families", default="e5-small,hash")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    pairs = dev_pairs(args.more, args.seed)
    ruled = [blocked_by_rules(o, n) for o, n, *_ in pairs]
    kinds_all = sorted({p[3] for p in pairs})
    print(f"{len(pairs)} dev pairs, {sum(r is not None for r in ruled)} blocked by a rule")
    for kind in kinds_all:
        idx = [i for i, p in enumerate(pairs) if p[3] == kind]
        hit = [ruled[i] for i in idx if ruled[i]]
        if hit:
            lab = pairs[idx[0]][2]
            print(f"  rules on {kind} ({'conflict' if lab else 'compatible'}): {len(hit)} of {len(idx)}")
    heads: dict[str, Any] = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
    kinds_file = json.loads((OUT.parent / "attribute_kinds.json").read_text(encoding="utf-8"))
    keep = [i for i, r in enumerate(ruled) if r is None]
    sub = [pairs[i] for i in keep]
    y = np.array([p[2] for p in sub])
    for family in args.families.split(","):
        embedder = get_embedder("e5" if family == "e5-small" else "hash-256")
        floor = float(getattr(embedder, "similarity_floor", 0.0) or 0.0)
        stub = {"features": list(GATE_FEATURES), "mean": [0.0] * len(GATE_FEATURES), "scale": [1.0] * len(GATE_FEATURES),
                "coef": [0.0] * len(GATE_FEATURES), "intercept": 0.0, "block": 0.0, "sure": 1.0, "floor": floor,
                "family": family, "temperature": TEMPERATURE[family],
                "vector": int(embedder.dim) if family in args.vector_families.split(",") else 0}  # fmt: skip
        x = table(sub, family, Gate(stub, kinds_file))
        kinds = np.array([p[3] for p in sub])
        out_of_kind = np.zeros(len(sub))
        for kind in sorted(set(kinds)):
            held = kinds == kind
            out_of_kind[held] = predict(logistic(x[~held], y[~held], args.l2), x[held])
        # a cancellation, hand-over, change by an amount or two sources is never blocked by the head (`gate.lifted`)
        lifted = np.array([gate_lifted(p[0], p[1]) for p in sub])
        written = np.array([":" in k for k in kinds]) | (args.keep_on == "all")
        block = max(
            (t for t in GRID if ((out_of_kind >= t) | lifted)[(y == 1) & written].mean() >= args.keep),
            default=GRID[0],
        )
        sure = min(
            (t for t in GRID if t >= block and (out_of_kind[y == 0] >= t).mean() <= args.leak), default=1.0
        )
        out_of_kind = np.where(lifted & (out_of_kind < block), block, out_of_kind)
        head = logistic(x, y, args.l2)
        print(f"\n{family}: block {block}, sure {sure} (leave-kind-out); weights:")
        print("  " + ", ".join(f"{n} {c:+.2f}" for n, c in zip(GATE_FEATURES, head["coef"], strict=False)))
        print(
            "| kind | label | n | leave-kind-out blocked | unsure | passed |\n|---|---|---:|---:|---:|---:|"
        )
        for kind in sorted(set(kinds)):
            p = out_of_kind[kinds == kind]
            label = "conflict" if y[kinds == kind][0] else "compatible"
            print(f"| {kind} | {label} | {len(p)} | {(p < block).mean():.1%} | "
                  f"{((p >= block) & (p < sure)).mean():.1%} | {(p >= sure).mean():.1%} |")  # fmt: skip
        for lang in ("en", "zh"):
            sel = np.array([p[4] == lang for p in sub])
            print(f"  {lang}: conflicts kept {(out_of_kind[sel & (y == 1)] >= block).mean():.1%}, compatible "
                  f"blocked {(out_of_kind[sel & (y == 0)] < block).mean():.1%} (leave-kind-out)")  # fmt: skip
            sel &= np.array([":" in k for k in kinds])
            print(f"  {lang}, written in plain words: conflicts kept {(out_of_kind[sel & (y == 1)] >= block).mean():.1%}, "
                  f"compatible blocked {(out_of_kind[sel & (y == 0)] < block).mean():.1%} (leave-kind-out)")  # fmt: skip
        heads[family] = {
            **stub, **head, "block": block, "sure": sure,
            "meta": {"pairs": len(sub), "l2": args.l2, "keep": args.keep, "keep_on": args.keep_on, "leak": args.leak,
                     "fitted_on": "dev: conflict_gen dev split, natural_dev.json, natural_dev2.json, gate_dev.json, "
                     "meaning_dev.json"
                     + "".join(f", {m.name}" for m in args.more)},
        }  # fmt: skip
    args.out.write_text(json.dumps(heads, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
