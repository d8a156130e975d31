"""The pair-level rates of the packaged pair scorers, written into docs/benchmarks.md (`fit_pairs --document`)."""

from __future__ import annotations

import json


def document() -> None:
    """Write the pair-level rates of the packaged scorers into docs/benchmarks.md (section fit_pairs)."""
    from importlib import resources

    from benchmarks._report import write_section

    rows, chosen, seeds, swaps = [], [], set(), False
    for name, what in (("pair_scorer_e5.json", "e5 scorer (features + e5 embedding interactions)"),
                       ("pair_reader_e5.json", "e5 reader (the e5 scorer's features + the pair as one passage; "
                                               "rates of the reader alone)"),
                       ("pair_scorer.json", "generic scorer (features only; any embedder)")):  # fmt: skip
        meta = json.loads(resources.files("psychoagent").joinpath("data", name).read_text())["meta"]
        seeds |= {x.strip() for x in str(meta.get("more_seeds", "")).split(",") if x.strip()}
        swaps = swaps or bool(meta.get("swaps"))
        th = meta["thresholds"]
        cv = meta.get("cross_validation", {})
        estimate = cv.get("cv_flagged_by_language")
        text = f"{what.split(' (')[0]}: update {th['update']}, contradiction {th['contradiction']}"
        if estimate:
            comp = cv["cv_compatible_by_language"]
            text += (
                f"; {cv['folds']}-fold leave-families-out cross-validation on dev at these thresholds: out-of-family "
                f"changes flagged English {estimate['en']:.1%}, Chinese {estimate['zh']:.1%}, dev compatible pairs "
                f"flagged (strictest fold) {comp['en']:.1%} / {comp['zh']:.1%}"
            )
            best = cv.get("cv_best")
            text += (
                f" (the grid point meeting 5 % would be update {best['update']}, contradiction "
                f"{best['contradiction']}: {best['cv_flagged']:.1%} of out-of-family changes)"
                if best
                else (" (no grid point keeps compatible pairs at 5 %)" if not cv.get("cv_bound_met") else "")
            )
        if meta.get("natural_weight"):
            text += (
                f"; also fitted on the plain-word dev sets {meta['natural']} (each pair weighing "
                f"{meta['natural_weight']:g} generated ones)"
            )
        chosen.append(text)
        for key, rates in meta["pair_rates"].items():
            rows.append(
                f"| {what} | {key.replace('_', ' ')} | {rates['changes_found']:.1%} | {rates['updates_as_update']:.1%} "
                f"| {rates['compatible_flagged']:.1%} | {rates['unrelated_flagged']:.1%} |"
            )
    stage = json.loads(resources.files("psychoagent").joinpath("data", "pair_scorer_masked.json").read_text())
    cv2 = stage["meta"]["cross_validation"]
    for split_name in ("dev", "test"):
        for lang in ("en", "zh"):
            r = stage["meta"]["pair_rates"][f"{split_name}_{lang}"]
            rows.append(
                f"| e5 scorer + second stage (masked predicates) | {split_name} {lang} | {r['changes_found']:.1%} "
                f"(first stage {r['first_stage_changes_found']:.1%}) | – | {r['compatible_flagged']:.1%} "
                f"(first stage {r['first_stage_compatible']:.1%}) | – |"
            )
    second = (
        "The second stage (an option, `ConflictConfig.second_stage`, off by default; "
        "`psychoagent/data/pair_scorer_masked.json`, `benchmarks/fit_masked.py`) decides the pairs "
        f"sharing a subject whose first-stage update or contradiction probability lies in [{stage['band'][0]}, "
        f"{stage['band'][1]}) (band and threshold {stage['thresholds']['update']} chosen by {cv2['folds']}-fold "
        "leave-families-out cross-validation on dev, allowing no more compatible dev pairs flagged than the first stage "
        f"alone: out-of-family changes flagged {cv2['cv_flagged_by_language']['en']:.1%} / "
        f"{cv2['cv_flagged_by_language']['zh']:.1%} against {cv2['first_stage']['found']['en']:.1%} / "
        f"{cv2['first_stage']['found']['zh']:.1%}); its rows count the scenario pairs (older, newer fact) only. "
    )
    body = (
        "Pair-level rates of the update/contradiction scorer (`psychoagent/data/pair_scorer*.json`), fitted on the "
        "DEV split of `benchmarks/conflict_gen` (seed 0"
        + (f"; and the dev scenarios of seeds {', '.join(sorted(seeds))}" if seeds else "")
        + ") plus same-person pairs from different dev domains, the dev "
        "source conflicts again told by two people and (e5 scorer) the dev pairs again with the newer fact naming its "
        "person by a pronoun (a value-only correction read by the embedded sentence it stands for"
        + (
            "; at write time it also reads the e5 vector of the value-swapped older sentence, `--swaps`, which "
            "recall reads at its training mean"
            if swaps
            else ""
        )
        + "), and "
        "measured on dev and on TEST (held-out phrasing families or domains). A pair is (older fact, newer fact) of a "
        "scenario, or a distractor paired with one of them (unrelated). Pairs that name different people and nobody "
        "in common never reach the scorer and are not counted. Each scorer's thresholds (stored with it) were chosen "
        "on dev only: " + "; ".join(chosen) + ". "
        "A scorer that also reads the e5 vectors of the differing words (`--spans`) is not packaged: it found more "
        "out-of-family dev changes in cross-validation but flagged more compatible test pairs (numbers in "
        '"Pair scorer options" below). '
        + second
        + "The whole-system numbers are in the conflict benchmark section.\n\n"
        "| scorer | split | changes found | updates judged update | compatible flagged | unrelated flagged |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows)
    )
    write_section("fit_pairs", "Conflicts: the pair scorer on generated pairs", body, after="bench_affect")
