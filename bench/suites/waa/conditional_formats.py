"""Which cells a sheet's conditional formats apply to, evaluated as WAA's load_xlsx_styles does.

WAA compiles each rule's formula with the `formulas` library and calls it with
the cell's value (read from the sheet's XML) as its first input, whatever
reference the formula makes relative to the cell, followed by one list of
values per absolute range (`$A$1:$B$9`) in the formula. Its pattern also
matches a single absolute cell (`$A$1`), which it then turns into the range
"A1:", which openpyxl rejects: such a formula makes WAA raise. Only rules of
type "expression" are evaluated; any other type makes WAA raise. This
module does the same, with the same library, so that a style rule over a
conditionally formatted sheet gets WAA's verdict.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import CellRange
from openpyxl.worksheet.worksheet import Worksheet

from bench.suites.waa.errors import MetricFailed

ABSOLUTE_RANGE = re.compile(r"\$(?P<col1>[A-Z]{1,3})\$(?P<row1>\d+)(?::\$(?P<col2>[A-Z]{1,3})\$(?P<row2>\d+))?")


def _parser() -> Any:
    try:
        import formulas
    except ImportError:
        raise MetricFailed("compare_table style: conditional formats are evaluated with the `formulas` library, "
                           "as WAA does: install troupe's waa extra") from None
    return formulas.Parser()


def _coordinate(row: int, column: int) -> str:
    return f"{get_column_letter(column)}{row}"


def conditional_cells(sheet: Worksheet, value_of: Callable[[str], Any]) -> Iterator[tuple[str, Any]]:
    """(coordinate, differential style) for each cell a rule holds for, rule by rule in the sheet's
    order; `value_of(coordinate)` reads a cell's value as WAA's read_cell_value does."""
    formats = list(sheet.conditional_formatting)
    if not formats:
        return
    parser = _parser()
    for fmt in formats:
        for rule in fmt.rules:
            if rule.type != "expression":
                raise MetricFailed(f"compare_table style: a conditional format of type {rule.type!r} on sheet "
                                   f"{sheet.title!r}, which WAA does not evaluate (it raises NotImplementedError)")
            condition = parser.ast("=" + rule.formula[0])[1].compile()
            arguments = []
            for col1, row1, col2, row2 in ABSOLUTE_RANGE.findall(rule.formula[0]):
                try:
                    cells = CellRange(f"{col1}{row1}:{col2}{row2}").cells
                except ValueError as exc:
                    raise MetricFailed(f"compare_table style: WAA reads the absolute reference ${col1}${row1} in "
                                       f"{rule.formula[0]!r} as the range {col1}{row1}: and raises ({exc})") from None
                arguments.append([value_of(_coordinate(*cell)) for cell in cells])
            for cell_range in fmt.cells:
                for row, column in cell_range.cells:
                    coordinate = _coordinate(row, column)
                    if condition(value_of(coordinate), *arguments):
                        yield coordinate, rule.dxf
