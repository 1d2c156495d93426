"""`compare_table`: a spreadsheet the agent saved against the task's gold file.

The task's `options.rules` lists checks, all of which must hold (score 1,
else 0). Sheets are named by `sheet_idx*` as the task schema writes them: an
int or "RI<n>" is the result's n-th sheet, "RN<name>" the result's sheet by
name, "EI<n>"/"EN<name>" the same in the expected workbook. Rules:

- `sheet_name`: both workbooks have the same sheet names in the same order;
- `sheet_data`: the two sheets hold the same values (formulas compared by
  the value the spreadsheet program cached when it saved), trailing empty
  rows and columns ignored;
- `style`: every cell of the two sheets agrees on each of `props`;
- `check_cell`: one cell of one sheet meets `props`, each `{method, ref}`;
- `chart`: the sheets hold the same number of charts, agreeing on `chart_props`
  (type, legend position, title);
- `pivot_table`: the same for pivot tables and `pivot_props` (the fields on
  rows, columns and filter, and the data fields with their summary function).

Read with openpyxl: xlsx is what the WAA calc tasks save and fetch. A missing
result file scores 0 (the agent did not save); a file that is not an xlsx
workbook or a rule this module does not know is a `MetricFailed` naming it.
"""

from __future__ import annotations

import io
import operator
import zipfile
from typing import Any, Callable

import openpyxl
from openpyxl.cell.cell import Cell
from openpyxl.styles.colors import Color
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from actors.waa.errors import MetricFailed


def _color(color: Color | None) -> str | None:
    """ARGB for an explicit colour; theme and indexed colours keep their kind,
    so two cells only agree when they name the same colour the same way."""
    if color is None:
        return None
    return color.rgb if color.type == "rgb" else f"{color.type}:{color.value}"


CELL_PROPS: dict[str, Callable[[Cell], Any]] = {
    "value": lambda cell: cell.value,
    "font_name": lambda cell: cell.font.name,
    "font_size": lambda cell: cell.font.sz,
    "font_bold": lambda cell: bool(cell.font.b),
    "font_italic": lambda cell: bool(cell.font.i),
    "font_underline": lambda cell: cell.font.u,
    "font_color": lambda cell: _color(cell.font.color),
    "bgcolor": lambda cell: _color(cell.fill.fgColor) if cell.fill.fill_type else None,
    "number_format": lambda cell: cell.number_format,
}

METHODS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}

CHART_PROPS: dict[str, Callable[[Any], Any]] = {
    "type": lambda chart: chart.tagname,
    "legend": lambda chart: chart.legend.position if chart.legend is not None else None,
    "title": lambda chart: _title_text(chart.title),
}


def _field_names(pivot: Any, indexes: list[int]) -> list[str]:
    """Pivot fields are stored as indexes into the pivot's cache; -2 is the
    "Values" pseudo-field Calc and Excel put on an axis for several data fields."""
    names = [field.name for field in pivot.cache.cacheFields]
    return [names[i] if 0 <= i < len(names) else "Values" for i in indexes]


PIVOT_PROPS: dict[str, Callable[[Any], Any]] = {
    "row_fields": lambda pivot: _field_names(pivot, [f.x for f in pivot.rowFields]),
    "col_fields": lambda pivot: _field_names(pivot, [f.x for f in pivot.colFields]),
    "filter": lambda pivot: _field_names(pivot, [f.fld for f in pivot.pageFields]),
    "data_fields": lambda pivot: list(zip(_field_names(pivot, [f.fld for f in pivot.dataFields]),
                                          [f.subtotal for f in pivot.dataFields])),
}


def _title_text(title: Any) -> str | None:
    if title is None or title.tx is None or title.tx.rich is None:
        return None
    return "".join(run.t for paragraph in title.tx.rich.p for run in (paragraph.r or []))


class Books:
    """The result and expected workbooks, each loaded twice: with formulas'
    cached values (for data) and as written (for styles, charts)."""

    def __init__(self, result: bytes, expected: bytes) -> None:
        self._raw = {"R": result, "E": expected}
        self._loaded: dict[tuple[str, bool], Workbook] = {}

    def book(self, side: str, values: bool = True) -> Workbook:
        key = (side, values)
        if key not in self._loaded:
            which = "result" if side == "R" else "expected"
            try:
                self._loaded[key] = openpyxl.load_workbook(io.BytesIO(self._raw[side]), data_only=values)
            except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
                raise MetricFailed(f"compare_table: the {which} file is not an xlsx workbook ({exc})") from None
        return self._loaded[key]

    def sheet(self, index: Any, values: bool = True) -> Worksheet | None:
        """A sheet named the schema's way (see the module docstring); None when there is no such sheet."""
        if isinstance(index, int):
            side, how, key = "R", "I", str(index)
        elif isinstance(index, str) and len(index) > 2 and index[0] in "RE" and index[1] in "IN":
            side, how, key = index[0], index[1], index[2:]
        else:
            raise MetricFailed(f"compare_table: sheet index {index!r} is not an int, RI<n>, RN<name>, EI<n> or EN<name>")
        book = self.book(side, values)
        try:
            return book.worksheets[int(key)] if how == "I" else book[key]
        except (IndexError, KeyError, ValueError):
            return None


def _grid(sheet: Worksheet) -> list[tuple[Any, ...]]:
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    width = max((i + 1 for row in rows for i, v in enumerate(row) if v not in (None, "")), default=0)
    trimmed = [tuple(None if v == "" else v for v in row[:width]) for row in rows]
    while trimmed and all(v is None for v in trimmed[-1]):
        trimmed.pop()
    return trimmed


def _pair(books: Books, rule: dict[str, Any], values: bool) -> tuple[Worksheet, Worksheet] | None:
    first, second = books.sheet(rule["sheet_idx0"], values), books.sheet(rule["sheet_idx1"], values)
    return None if first is None or second is None else (first, second)


def _sheet_name(books: Books, rule: dict[str, Any]) -> bool:
    return books.book("R").sheetnames == books.book("E").sheetnames


def _sheet_data(books: Books, rule: dict[str, Any]) -> bool:
    sheets = _pair(books, rule, values=True)
    return sheets is not None and _grid(sheets[0]) == _grid(sheets[1])


def _known(names: list[str], known: dict[str, Any], what: str) -> list[str]:
    unknown = sorted(set(names) - known.keys())
    if unknown:
        raise MetricFailed(f"compare_table: unknown {what} {unknown} (known: {sorted(known)})")
    return names


def _style(books: Books, rule: dict[str, Any]) -> bool:
    props = _known(rule["props"], CELL_PROPS, "style props")
    sheets = _pair(books, rule, values=False)
    if sheets is None:
        return False
    first, second = sheets
    rows, columns = max(first.max_row, second.max_row), max(first.max_column, second.max_column)
    return all(
        CELL_PROPS[prop](first.cell(r, c)) == CELL_PROPS[prop](second.cell(r, c))
        for r in range(1, rows + 1) for c in range(1, columns + 1) for prop in props
    )


def _check_cell(books: Books, rule: dict[str, Any]) -> bool:
    wanted = rule["props"]
    _known(list(wanted), CELL_PROPS, "cell props")
    sheet = books.sheet(rule["sheet_idx"], values=True)
    if sheet is None:
        return False
    cell = sheet[rule["coordinate"]]
    for prop, test in wanted.items():
        method = METHODS.get(test.get("method"))
        if method is None:
            raise MetricFailed(f"compare_table: check_cell {prop}: method {test.get('method')!r} is not one of {sorted(METHODS)}")
        try:
            if not method(CELL_PROPS[prop](cell), test["ref"]):
                return False
        except TypeError:
            return False
    return True


def _objects_agree(books: Books, rule: dict[str, Any], kind: str, known: dict[str, Callable[[Any], Any]]) -> bool:
    """Charts or pivot tables: as many on each sheet, agreeing pairwise on the rule's `<kind>_props`."""
    props = _known(rule[f"{kind}_props"], known, f"{kind} props")
    sheets = _pair(books, rule, values=False)
    if sheets is None:
        return False
    found = [sheet._charts if kind == "chart" else sheet._pivots for sheet in sheets]
    if len(found[0]) != len(found[1]):
        return False
    return all(known[p](a) == known[p](b) for a, b in zip(*found) for p in props)


RULES: dict[str, Callable[[Books, dict[str, Any]], bool]] = {
    "sheet_name": _sheet_name,
    "sheet_data": _sheet_data,
    "style": _style,
    "check_cell": _check_cell,
    "chart": lambda books, rule: _objects_agree(books, rule, "chart", CHART_PROPS),
    "pivot_table": lambda books, rule: _objects_agree(books, rule, "pivot", PIVOT_PROPS),
}


def compare_table(result: bytes | None, expected: bytes | None, *, rules: list[dict[str, Any]] | None = None,
                  **options: Any) -> float:
    if not rules:
        raise MetricFailed("compare_table: options need a non-empty `rules` list")
    for rule in rules:
        if rule.get("type") not in RULES:
            raise MetricFailed(f"compare_table: rule type {rule.get('type')!r} is not supported (supported: {sorted(RULES)})")
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("compare_table: the expected workbook could not be read")
    books = Books(result, expected)
    for rule in rules:
        try:
            if not RULES[rule["type"]](books, rule):
                return 0.0
        except KeyError as exc:
            raise MetricFailed(f"compare_table: a {rule['type']} rule misses the field {exc}") from None
    return 1.0
