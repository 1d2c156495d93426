"""A conditional format's formula as WAA's and OSWorld's load_xlsx_styles compile it.

Both compile `"=" + formula` with the `formulas` library and call the result
with the cell's value first, whatever reference the formula makes relative
to the cell, followed by one list of values per absolute range (`$A$1:$B$9`)
in the formula, read from the sheet as their read_cell_value reads cells.
Their pattern also matches a single absolute cell (`$A$1`), which they then
turn into the range "A1:", which openpyxl rejects: such a formula makes both
raise, and `range_arguments` raises `AbsoluteCell`. What a formula
the library cannot parse raises, and what each reference does with it,
differ: each suite decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import CellRange

from protocols import TroupeError

__all__ = ["ABSOLUTE_RANGE", "AbsoluteCell", "coordinate", "compile_formula", "parser", "range_arguments"]

ABSOLUTE_RANGE = re.compile(r"\$(?P<col1>[A-Z]{1,3})\$(?P<row1>\d+)(?::\$(?P<col2>[A-Z]{1,3})\$(?P<row2>\d+))?")


class AbsoluteCell(TroupeError, RuntimeError):
    """A formula names a single absolute cell, which both references turn into a range openpyxl rejects."""


def parser() -> Any:
    """A `formulas.Parser`; ImportError without the library (each suite's extra carries it)."""
    import formulas  # noqa: PLC0415 - needed only for a sheet with conditional formats

    return formulas.Parser()


def compile_formula(formulas_parser: Any, formula: str) -> Callable[..., Any]:
    return formulas_parser.ast("=" + formula)[1].compile()


def coordinate(row: int, column: int) -> str:
    return f"{get_column_letter(column)}{row}"


def _cells(col1: str, row1: str, col2: str, row2: str) -> Any:
    try:
        return CellRange(f"{col1}{row1}:{col2}{row2}").cells
    except ValueError as exc:
        raise AbsoluteCell(f"the formula names the absolute cell ${col1}${row1}, which both references read as "
                           f"the range {col1}{row1}: ({exc})") from None


def range_arguments(formula: str, value_of: Callable[[str], Any]) -> list[list[Any]]:
    """The values of each absolute range the formula names, in its order, read with `value_of(coordinate)`."""
    return [[value_of(coordinate(*cell)) for cell in _cells(*match)] for match in ABSOLUTE_RANGE.findall(formula)]
