"""Workbooks, and charts and pivot tables put on an openpyxl sheet, for the compare_table tests of both
suites.

`workbook` writes sheets of rows; `chart` and `pivot` return a `build(sheet)`
that adds the object to a sheet (the rows "Name, Q1, Q2" in A1:C3 by
default).
"""

from __future__ import annotations

import io
from typing import Any, Callable

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.pivot.cache import CacheDefinition, CacheField, CacheSource, SharedItems, WorksheetSource
from openpyxl.pivot.table import DataField, FieldItem, Location, PageField, PivotField, RowColField, TableDefinition


def workbook(sheets: dict[str, list[list[Any]]], edit: Callable[[Workbook], None] | None = None) -> bytes:
    """An xlsx workbook: its sheets' rows by name, then `edit` applied."""
    made = Workbook()
    made.remove(made.active)
    for name, rows in sheets.items():
        sheet = made.create_sheet(name)
        for row in rows:
            sheet.append(row)
    if edit is not None:
        edit(made)
    out = io.BytesIO()
    made.save(out)
    return out.getvalue()


def chart(kind: type = BarChart, columns: tuple[int, ...] = (2,), title: str | None = None,
          legend: str | None = "r", x_title: str | None = None, **attributes: Any) -> Callable[[Any], None]:
    """One chart per column in `columns` (its values rows 1-3, categories column A), with `attributes`
    set on it (barDir, width, ...)."""
    def build(sheet: Any) -> None:
        for column in columns:
            made = kind()
            made.add_data(Reference(sheet, min_col=column, min_row=1, max_row=3), titles_from_data=True)
            made.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=3))
            made.title = title
            if x_title is not None:
                made.x_axis.title = x_title
            for name, value in attributes.items():
                setattr(made, name, value)
            if legend is None:
                made.legend = None
            else:
                made.legend.position = legend
            sheet.add_chart(made, "E2")
    return build


def pivot(rows: tuple[int, ...] = (0,), page: tuple[int, ...] = (), columns: tuple[int, ...] = (),
          ref: str = "A1:C3", subtotal: str = "sum", hidden: bool = False, data_name: str = "Q1",
          fields: tuple[str, ...] = ("Name", "Q1", "Q2"), unused_first: bool = False,
          source: str | None = None) -> Callable[[Any], None]:
    """A pivot table over `ref` of the sheet `source` (the one it is put on by default): the fields in
    `rows`, `page` and `columns` on those axes, field 1 its data field (named `data_name`, summed by
    `subtotal`), field 0 showing two items (the second `hidden`); `unused_first`: the first field lists no
    items."""
    def build(sheet: Any) -> None:
        axes = {i: "axisRow" for i in rows} | {i: "axisPage" for i in page} | {i: "axisCol" for i in columns}
        items = [FieldItem(x=0), FieldItem(x=1, h=hidden or None)]
        shown = 1 if unused_first else 0
        made = TableDefinition(
            name="P", cacheId=1, dataCaption="Values",
            location=Location(ref="E1:F3", firstHeaderRow=1, firstDataRow=1, firstDataCol=1),
            pivotFields=[PivotField(axis=axes.get(i), dataField=i == 1, items=items if i == shown else [])
                         for i in range(len(fields))],
            rowFields=[RowColField(x=i) for i in rows], colFields=[RowColField(x=i) for i in columns],
            pageFields=[PageField(fld=i) for i in page],
            dataFields=[DataField(name=data_name, fld=1, subtotal=subtotal)])
        made.cache = CacheDefinition(
            cacheSource=CacheSource(type="worksheet",
                                    worksheetSource=WorksheetSource(ref=ref, sheet=source or sheet.title)),
            cacheFields=[CacheField(name=n, sharedItems=SharedItems()) for n in fields])
        sheet._pivots.append(made)
    return build
