"""Matplotlib helpers: figures without pyplot (Agg, no global state) encoded as base64 PNG for embedding."""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 100
"""At 14 inches wide a figure is 1400 px, the page's full width: text stays sharp and a report stays ~1-2 MB."""
WIDTH = 14.0
"""Figure width in inches: the page's content width at DPI."""
STYLE: dict[str, Any] = {
    "font.size": 14, "axes.titlesize": 15, "axes.labelsize": 14, "xtick.labelsize": 12, "ytick.labelsize": 12,
    "legend.fontsize": 12, "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False,
    "axes.spines.right": False, "figure.constrained_layout.use": True,
}  # fmt: skip
"""Matplotlib settings of every report figure: 14 pt text at 100 dpi reads at about 19 px at full width."""
P = ParamSpec("P")
R = TypeVar("R")
LINESTYLES = ("-", "--", ":", "-.")
"""Per condition, with the colour: conditions whose lines coincide (fixed personas) stay visible."""
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf")


def styled(plot: Callable[P, R]) -> Callable[P, R]:
    """Run a plotting function under the report's style (matplotlib's rc_context: nothing global changes)."""

    @functools.wraps(plot)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        import matplotlib

        with matplotlib.rc_context(cast(Any, STYLE)):  # typed keys: a literal per rc name
            return plot(*args, **kwargs)

    return wrapper


def legend_outside(ax: Axes, **kwargs: Any) -> None:
    """The axes' legend to the right of the plot, never over its lines (constrained layout makes room)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False, **kwargs)


def figure(
    rows: int = 1, cols: int = 1, width: float = WIDTH, height: float = 3.6
) -> tuple[Figure, np.ndarray]:
    """A figure with a rows x cols grid of axes (always a flat array); height is per row."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height * rows), dpi=DPI, layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, np.asarray(axes).ravel()


def label(ax: Axes, title: str, xlabel: str = "month", ylabel: str = "") -> None:
    """Title and axis labels of one panel."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)


def percent_axis(ax: Axes, axis: str = "y") -> None:
    """Tick labels of a share as percentages (0.05 -> 5%)."""
    from matplotlib.ticker import PercentFormatter

    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0, decimals=None))


def note(ax: Axes, text: str) -> None:
    """An empty panel that says why it is empty ('n/a, because ...') instead of a meaningless plot."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, transform=ax.transAxes, color="#555")


def png_base64(fig: Figure) -> str:
    """The figure as a base64-encoded PNG (the figure is closed afterwards)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    fig.clear()
    return base64.b64encode(buf.getvalue()).decode("ascii")


def hide_unused(axes: Sequence[Axes] | np.ndarray, used: int) -> None:
    """Turn off the axes after the first `used` ones."""
    for ax in axes[used:]:
        ax.set_visible(False)


def mark_ticks(ax: Axes, ticks: Sequence[int]) -> None:
    """Dashed vertical lines at regime changes (shock starts)."""
    for t in ticks:
        ax.axvline(t, color="grey", linestyle="--", linewidth=0.8)


def band(
    ax: Axes,
    x: Any,
    panel: np.ndarray,
    colour: str,
    label: str = "",
    lo: float = 10,
    hi: float = 90,
    linestyle: str = "-",
) -> None:
    """Median line with a shaded lo-hi percentile band of a (time x members) array."""
    with np.errstate(all="ignore"):
        q = np.nanpercentile(panel, [lo, 50, hi], axis=1)
    ax.fill_between(x, q[0], q[2], color=colour, alpha=0.2, linewidth=0)
    ax.plot(x, q[1], color=colour, linewidth=1.8, linestyle=linestyle, label=label or None)


def scatter_fit(ax: Axes, x: np.ndarray, y: np.ndarray, colour: str = COLOURS[0], label: str = "") -> None:
    """Scatter of (x, y) with a least-squares line when there are at least 3 finite points."""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    ax.scatter(x, y, s=18, color=colour, alpha=0.75, label=label or None)
    if x.size >= 3 and np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        xs = np.linspace(x.min(), x.max(), 20)
        ax.plot(xs, slope * xs + intercept, color=colour, linewidth=1)
