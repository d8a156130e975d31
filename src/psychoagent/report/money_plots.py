"""The transmission of monetary policy on one figure: the central bank's rate, the money stock and firms' loans,
who holds the government's bills and bonds, inflation and unemployment, month by month, with the shocks marked."""

from __future__ import annotations

from psychoagent.eval.rundata import RunData
from psychoagent.report.figures import COLOURS, figure, label, mark_ticks, percent_axis, png_base64, styled

PANELS = (
    ("rate", "central bank rate", "per year"),
    ("money", "money stock and firms' loans", "money"),
    ("holdings", "government debt: who holds it", "money (at face)"),
    ("inflation", "inflation (change over 12 months)", "price change"),
    ("unemployment", "unemployment rate", "share of households"),
)
"""(panel, title, y-axis unit), in the order the rate moves through the economy."""
SERIES = {
    "rate": (("interest_rate", "policy rate"),),
    "money": (("money", "money (cash, deposits, firms' balances)"), ("loans", "firms' overdrafts")),
    "holdings": (("bills_households", "bills, households"), ("bills_bank", "bills, bank"),
                 ("bonds_households", "bonds, households")),
    "inflation": (("inflation", "inflation"),),
    "unemployment": (("unemployment", "unemployment"),),
}  # fmt: skip
"""Per panel: (macro-table column, legend label)."""
SHARES = {"rate", "inflation", "unemployment"}


@styled
def transmission(run: RunData) -> str | None:
    """Rate, money and loans, bill and bond holdings, inflation and unemployment in one column of panels; None
    when the macro table lacks the money columns (runs written before they were recorded)."""
    m = run.macro
    if "money" not in m.columns or m.empty:
        return None
    fig, axes = figure(len(PANELS), 1, height=2.6)
    for ax, (panel, title, unit) in zip(axes, PANELS, strict=True):
        lines = [(col, name) for col, name in SERIES[panel] if col in m.columns]
        for k, (col, name) in enumerate(lines):
            ax.plot(m["tick"], m[col], color=COLOURS[k], linewidth=1.6, label=name)
        label(ax, title, "month", unit)
        if panel in SHARES:
            percent_axis(ax)
        if len(lines) > 1:
            ax.legend(loc="upper left")
        mark_ticks(ax, run.shock_ticks())
    return png_base64(fig)
