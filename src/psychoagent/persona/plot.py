"""Plot a persona history: traits over time with the events that moved them marked (matplotlib, Agg canvas)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from psychoagent.persona.history import PersonaHistory
from psychoagent.persona.model import TRAITS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGSIZE: tuple[float, float] = (9.0, 4.5)
"""Figure size in inches."""
DPI = 120
"""Resolution of saved figures."""
LOSS_COLOR, GAIN_COLOR = "tab:red", "tab:green"
"""Event markers: negative impact red, positive green."""
MAJOR_ALPHA, MINOR_ALPHA = 0.6, 0.2
"""Major events are drawn solid, minor ones faint."""


def plot_persona_history(
    history: PersonaHistory,
    path: str | Path | None = None,
    traits: Sequence[str] = TRAITS,
    title: str | None = None,
) -> Figure:
    """Draw the chosen traits over time; vertical lines mark events (red: bad surprise, green: good one).

    Saves to `path` when given; returns the Figure. Uses the Agg canvas, so no display is needed.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    times = history.times()
    for trait in traits:
        ax.plot(times, history.series(trait), label=trait, drawstyle="steps-post")
    for time, explanation in history.events():
        ax.axvline(
            time,
            color=LOSS_COLOR if explanation.impact < 0 else GAIN_COLOR,
            alpha=MAJOR_ALPHA if explanation.major else MINOR_ALPHA,
            linestyle="-" if explanation.major else ":",
        )
    ax.set_xlabel("time (ticks)")
    ax.set_ylabel("trait value")
    ax.set_title(title or f"Persona of {history.agent_id or 'agent'}")
    ax.axhline(0.0, color="grey", linewidth=0.5)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    if path is not None:
        fig.savefig(Path(path), dpi=DPI)
    return fig
