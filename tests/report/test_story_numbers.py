"""Every number the summary states is recomputed here from the run's own files: a sentence that drifts from the
data, prints a number in scientific notation or cuts a word in half fails."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from psychoagent.eval.metrics import write_metrics
from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.report.summary import clip_words, run_summary

NUM = r"(-?[\d,]+(?:\.\d+)?)"


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _story(folder: Path) -> tuple[RunData, dict[str, list[str]], dict]:
    run = RunData.open(folder)
    metrics = write_metrics(folder)["metrics"]
    return run, run_summary(run, metrics), metrics


def _sentence(story: dict[str, list[str]], topic: str, start: str) -> str:
    found = [s for s in story[topic] if s.startswith(start)]
    assert found, f"no sentence starting {start!r} in {story[topic]}"
    return found[0]


@pytest.mark.parametrize("fixture", ["tiny_run", "cognitive_run"])
def test_economy_sentences_match_macro_csv(fixture: str, request: pytest.FixtureRequest) -> None:
    run, story, metrics = _story(request.getfixturevalue(fixture))
    m = run.macro
    u = m["unemployment"].astype(float).to_numpy()
    line = _sentence(story, "Economy", "Unemployment averaged")
    mean, first, last, peak, month = re.search(
        rf"averaged {NUM} %: {NUM} % in the first year, {NUM} % in the last, highest {NUM} % in month (\d+)",
        line,
    ).groups()  # type: ignore[union-attr]
    assert _num(mean) == pytest.approx(100 * u.mean(), abs=0.051)
    assert _num(first) == pytest.approx(100 * u[:12].mean(), abs=0.051)
    assert _num(last) == pytest.approx(100 * u[-12:].mean(), abs=0.051)
    assert _num(peak) == pytest.approx(100 * u.max(), abs=0.051)
    assert int(month) == int(m["tick"].iloc[int(np.argmax(u))])
    prices = _sentence(story, "Economy", "Prices")
    rate = re.search(rf"(rose|fell) {NUM} % a year", prices).groups()  # type: ignore[union-attr]
    infl = metrics["macro.annual_inflation"]
    assert _num(rate[1]) == pytest.approx(100 * abs(infl), abs=0.051) and (rate[0] == "rose") == (infl >= 0)
    output = _sentence(story, "Economy", "Real output")
    a, b = (_num(x) for x in re.search(rf"from {NUM} to {NUM} goods", output).groups())  # type: ignore[union-attr]
    gdp = m["real_gdp"].astype(float).to_numpy()
    assert a == pytest.approx(gdp[:12].mean(), abs=0.5) and b == pytest.approx(gdp[-12:].mean(), abs=0.5)
    change = 100 * abs(b / a - 1)
    if change < 0.5:
        assert "about unchanged" in output
    else:
        shown = _num(re.search(r"\(.(\d+(?:\.\d+)?) %", output).group(1))  # type: ignore[union-attr]
        assert shown == pytest.approx(change, abs=0.51)
    gini = _sentence(story, "Economy", "Inequality")
    g0, g1 = (float(x) for x in re.search(r"Gini (\d\.\d\d) → (\d\.\d\d)", gini).groups())  # type: ignore[union-attr]
    assert g0 == pytest.approx(m["gini"].iloc[0], abs=0.006) and g1 == pytest.approx(
        m["gini"].iloc[-1], abs=0.006
    )
    for sentence in (s for part in story.values() for s in part):
        assert not re.search(r"\d[eE][+-]\d", sentence), sentence


def test_memory_and_persona_sentences_match_the_events(cognitive_run: Path) -> None:
    run, story, _ = _story(cognitive_run)
    formed = run.events(EventType.MEMORY_FORMED)
    count = sum(float((e.get("payload") or {}).get("count", 1)) for e in formed)
    stored = _sentence(story, "Memory", "The agents stored")
    assert _num(re.search(rf"stored {NUM} memories", stored).group(1)) == pytest.approx(count)  # type: ignore[union-attr]
    updates = run.events(EventType.PERSONA_EVOLVED)
    changed = _sentence(story, "Personas", "Personas changed")
    assert _num(re.search(rf"changed {NUM} times", changed).group(1)) == len(updates)  # type: ignore[union-attr]
    risk = run.panel("risk_preference")
    assert risk is not None
    line = _sentence(story, "Personas", "Mean risk appetite")
    a, b = (float(x) for x in re.search(r"from (\d\.\d\d) in the first month to (\d\.\d\d)", line).groups())  # type: ignore[union-attr]
    assert a == pytest.approx(risk.iloc[0].mean(), abs=0.006) and b == pytest.approx(
        risk.iloc[-1].mean(), abs=0.006
    )
    again = [s for s in story["Personas"] if re.search(r"risk appetite (rose|fell) from", s)]
    assert not [s for s in again if not s.startswith("In the")]  # the first-to-last change is stated once


def test_quotes_end_on_a_whole_word() -> None:
    text = "Sold 3.94 stock at 19.85 after a sharp rise signal expecting a further rise of ten percent"
    clipped = clip_words(text, 40)
    assert len(clipped) <= 40 and clipped.endswith("…")
    assert text.startswith(clipped[:-1]) and text[len(clipped) - 1] == " "
    assert clip_words("short", 40) == "short"
