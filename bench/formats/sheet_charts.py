"""A sheet's charts as WAA's and OSWorld's load_charts read them (their utils.py are the same there).

Each chart is keyed by its series: for each, the formula of its values and of
its categories (a `numRef`'s, else a `strRef`'s, else ""), joined as
"values,categories" and the series by ";"; two charts over the same series
count once (the later wins). Its value is the `props` asked for, each read as
the references read it: `title` (and `xtitle`, `ytitle`, `ztitle`, the axes'
titles) is the first run of the title's first paragraph, None when that is
not there (no title, no such axis, a title without rich text); `legend` the
legend's position (None without a legend); `type` the chart's tag
(barChart, lineChart, pieChart, ...); `width`, `height`; `direction` the bar
direction and `anchor` [editAs, from column, to row, to column, to row] (the
references read the `to` row twice), which raise AttributeError for a chart
that has none, as there. Other names are passed over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from openpyxl.worksheet.worksheet import Worksheet

from bench.formats.spreadsheet import Workbooks

__all__ = ["CHART_PROPS", "charts", "same_charts"]


def _reference(source: Any) -> str:
    for kind in ("numRef", "strRef"):
        ref = getattr(source, kind, None)
        if ref is not None and hasattr(ref, "f"):
            return f"{ref.f}"
    return ""


def _first_run(title: Callable[[], Any]) -> Any:
    """The references' `try: ....title.tx.rich.p[0].r[0].t except: None`."""
    try:
        return title().tx.rich.p[0].r[0].t
    except Exception:  # noqa: BLE001 - the references catch everything here
        return None


CHART_PROPS: dict[str, Callable[[Any], Any]] = {
    "title": lambda ch: _first_run(lambda: ch.title),
    "legend": lambda ch: ch.legend.position if ch.legend is not None else None,
    "anchor": lambda ch: [ch.anchor.editAs, ch.anchor._from.col, ch.anchor.to.row, ch.anchor.to.col, ch.anchor.to.row],
    "width": lambda ch: ch.width,
    "height": lambda ch: ch.height,
    "type": lambda ch: ch.tagname,
    "direction": lambda ch: ch.barDir,
    "xtitle": lambda ch: _first_run(lambda: ch.x_axis.title),
    "ytitle": lambda ch: _first_run(lambda: ch.y_axis.title),
    "ztitle": lambda ch: _first_run(lambda: ch.z_axis.title),
}


def charts(sheet: Worksheet | None, props: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The sheet's charts, {} for no sheet."""
    if sheet is None:
        return {}
    wanted = set(props)
    return {";".join(f"{_reference(s.val)},{_reference(s.cat)}" for s in chart.series):
            {name: read(chart) for name, read in CHART_PROPS.items() if name in wanted} for chart in sheet._charts}


def same_charts(books: Workbooks, rule: dict[str, Any]) -> bool:
    """The `chart` rule of both references' compare_table: the sheets `sheet_idx0` and `sheet_idx1`
    have equal charts with their `chart_props`."""
    props = rule.get("chart_props", [])
    return charts(books.sheet(rule["sheet_idx0"]), props) == charts(books.sheet(rule["sheet_idx1"]), props)
