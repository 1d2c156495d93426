"""A sheet's pivot tables as WAA's and OSWorld's load_pivot_tables read them (their utils.py are the same there).

Each pivot table is keyed by its source: the cache source's type, its range
with the columns no field selects items of trimmed from both ends (as
(row, column) pairs), and its sheet. Its value is the `props` asked for:
`name`; `show_total` (visualTotals), `show_empty_row`, `show_empty_col`,
`show_headers`; `location`; `filter` or `selection`: which items each field
shows, as a set of (hidden, index) pairs per field (a list with `ordered`),
and with `filter` the page fields' indexes (`filter_fields`); `col_fields`
and `row_fields` as field indexes and `data_fields` as
"index;name;subtotal;showDataAs" strings (the name only with
`data_fields_name`), the indexes shifted by the trimmed columns. Other names
are passed over. A source without a worksheet range raises, as there.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from openpyxl.utils import coordinate_to_tuple
from openpyxl.worksheet.worksheet import Worksheet

from bench.formats.spreadsheet import Workbooks

__all__ = ["pivot_tables", "same_pivot_tables"]

_SIMPLE = {"name": "name", "show_total": "visualTotals", "show_empty_row": "showEmptyRow",
           "show_empty_col": "showEmptyCol", "show_headers": "showHeaders", "location": "location"}


def _pivot(pivot: Any, props: set[str]) -> tuple[str, dict[str, Any]]:
    raw = [[(item.h, item.x) for item in field.items if item.x is not None] for field in pivot.pivotFields]
    trimmed = list(itertools.dropwhile(lambda r: not r, raw))
    left = len(raw) - len(trimmed)
    selection = list(itertools.dropwhile(lambda r: not r, reversed(trimmed)))[::-1]
    right = len(trimmed) - len(selection)
    source = pivot.cache.cacheSource
    start, end = source.worksheetSource.ref.split(":")
    (r1, c1), (r2, c2) = coordinate_to_tuple(start), coordinate_to_tuple(end)
    key = f"{source.type};{(r1, c1 + left)}:{(r2, c2 - right)};{source.worksheetSource.sheet}"
    info: dict[str, Any] = {prop: getattr(pivot, attribute) for prop, attribute in _SIMPLE.items() if prop in props}
    if props & {"filter", "selection"}:
        info["selection"] = selection if "ordered" in props else [set(r) for r in selection]
    if "filter" in props:
        info["filter_fields"] = {f.fld for f in pivot.pageFields}
    for prop, fields in (("col_fields", pivot.colFields), ("row_fields", pivot.rowFields)):
        if prop in props:
            info[prop] = [f.x - left for f in fields]
    if "data_fields" in props:
        info["data_fields"] = [f"{f.fld - left:d};{f.name if 'data_fields_name' in props else ''};"
                               f"{f.subtotal};{f.showDataAs}" for f in pivot.dataFields]
    return key, info


def pivot_tables(sheet: Worksheet | None, props: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The sheet's pivot tables, {} for no sheet."""
    wanted = set(props)
    return {} if sheet is None else dict(_pivot(p, wanted) for p in sheet._pivots)


def same_pivot_tables(books: Workbooks, rule: dict[str, Any]) -> bool:
    """The `pivot_table` rule of both references' compare_table: the sheets `sheet_idx0` and `sheet_idx1`
    have equal pivot tables with their `pivot_props`."""
    props = rule.get("pivot_props", [])
    return pivot_tables(books.sheet(rule["sheet_idx0"]), props) == pivot_tables(books.sheet(rule["sheet_idx1"]), props)
