"""Which cells a sheet's conditional formats apply to, evaluated as WAA's load_xlsx_styles does.

Each rule's formula is compiled and called as bench.formats.conditional_formulas
says, with every cell of the format's ranges, empty ones too. Only rules of
type "expression" are evaluated; any other type makes WAA raise, and so does
a formula the library cannot parse or that names a single absolute cell.
This module does the same, with the same library, so that a style rule over
a conditionally formatted sheet gets WAA's verdict.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from openpyxl.worksheet.worksheet import Worksheet

from bench.formats.conditional_formulas import AbsoluteCell, compile_formula, coordinate, parser, range_arguments
from bench.suites.waa.errors import MetricFailed


def _parser() -> Any:
    try:
        return parser()
    except ImportError:
        raise MetricFailed("compare_table style: conditional formats are evaluated with the `formulas` library, "
                           "as WAA does: install troupe's waa extra") from None


def conditional_cells(sheet: Worksheet, value_of: Callable[[str], Any]) -> Iterator[tuple[str, Any]]:
    """(coordinate, differential style) for each cell a rule holds for, rule by rule in the sheet's
    order; `value_of(coordinate)` reads a cell's value as WAA's read_cell_value does."""
    formats = list(sheet.conditional_formatting)
    if not formats:
        return
    formulas_parser = _parser()
    for fmt in formats:
        for rule in fmt.rules:
            if rule.type != "expression":
                raise MetricFailed(f"compare_table style: a conditional format of type {rule.type!r} on sheet "
                                   f"{sheet.title!r}, which WAA does not evaluate (it raises NotImplementedError)")
            condition = compile_formula(formulas_parser, rule.formula[0])
            try:
                arguments = range_arguments(rule.formula[0], value_of)
            except AbsoluteCell as exc:
                raise MetricFailed(f"compare_table style: {rule.formula[0]!r}: {exc}") from None
            for cell_range in fmt.cells:
                for row, column in cell_range.cells:
                    place = coordinate(row, column)
                    if condition(value_of(place), *arguments):
                        yield place, rule.dxf
