"""Affect baseline monitor (seed 5.4): tracks the distribution of stored affect and warns on negative drift."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from psychoagent.memory.config import MonitorConfig
from psychoagent.types import MemoryUnit, utcnow

log = logging.getLogger("psychoagent.memory.monitor")
"""The warnings' logger keeps the name run logs have always shown (`psychoagent.econ.run.run_log`)."""


class AffectWarning(BaseModel):
    """Emitted when recent memories drift negative: what was measured against which threshold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: str
    at: datetime
    mean_valence: float
    baseline: float
    negative_share: float
    window: int
    reason: str


class AffectMonitor:
    """Keeps a rolling window of stored valences; the first full window is the baseline. Listeners get each
    `AffectWarning` (raised once per episode: it re-arms when the window recovers)."""

    def __init__(self, namespace: str, config: MonitorConfig | None = None) -> None:
        self.namespace = namespace
        self.config = config or MonitorConfig()
        self.window: deque[int] = deque(maxlen=self.config.window)
        self.baseline: float | None = None
        self.total = 0
        self.counts = {v: 0 for v in range(-2, 3)}
        self.listeners: list[Callable[[AffectWarning], None]] = []
        self.warnings: list[AffectWarning] = []
        self._alarmed = False
        self.logs = True
        """Write each warning to the log too (off for a copy whose original already logs, e.g. a shard's)."""

    def subscribe(self, listener: Callable[[AffectWarning], None]) -> None:
        """Call `listener(warning)` for every warning from now on."""
        self.listeners.append(listener)

    def stats(self) -> dict[str, float]:
        """Current window: mean valence, negative share, size; plus baseline and all-time counts."""
        n = len(self.window)
        mean = sum(self.window) / n if n else 0.0
        neg = sum(1 for v in self.window if v < 0) / n if n else 0.0
        out = {"mean_valence": mean, "negative_share": neg, "window": float(n), "total": float(self.total)}
        out["baseline"] = self.baseline if self.baseline is not None else 0.0
        out.update({f"count_{v}": float(c) for v, c in self.counts.items()})
        return out

    def observe(self, units: list[MemoryUnit] | tuple[MemoryUnit, ...]) -> AffectWarning | None:
        """Add stored units (summaries excluded) and return a warning if the window crossed a threshold."""
        return self.observe_values([(unit.kind, unit.affect.valence) for unit in units])

    def observe_values(self, items: Iterable[tuple[str, int]]) -> AffectWarning | None:
        """`observe` for (kind, valence) pairs of stored units, as a load reads them."""
        for kind, valence in items:
            if kind == "summary":
                continue
            self.window.append(valence)
            self.counts[valence] += 1
            self.total += 1
            if self.baseline is None and len(self.window) == self.window.maxlen:
                self.baseline = sum(self.window) / len(self.window)
        return self._check()

    def _check(self) -> AffectWarning | None:
        cfg = self.config
        if len(self.window) < cfg.min_units:
            return None
        st = self.stats()
        mean, neg = st["mean_valence"], st["negative_share"]
        baseline = self.baseline if self.baseline is not None else 0.0
        reasons = []
        if mean < cfg.mean_threshold:
            reasons.append(f"mean valence {mean:+.2f} below {cfg.mean_threshold:+.2f}")
        if self.baseline is not None and baseline - mean > cfg.drift_threshold:
            reasons.append(
                f"mean valence {mean:+.2f} is {baseline - mean:.2f} below the baseline {baseline:+.2f}"
            )
        if neg > cfg.negative_share:
            reasons.append(f"{neg:.0%} of recent memories are negative (threshold {cfg.negative_share:.0%})")
        if not reasons:
            self._alarmed = False
            return None
        if self._alarmed:
            return None
        self._alarmed = True
        warning = AffectWarning(
            namespace=self.namespace, at=utcnow(), mean_valence=mean, baseline=baseline, negative_share=neg,
            window=len(self.window), reason="; ".join(reasons),
        )  # fmt: skip
        self.warnings.append(warning)
        if self.logs:
            log.warning("affect drift in %r: %s", self.namespace, warning.reason)
        for listener in self.listeners:
            listener(warning)
        return warning
