"""Which cells a sheet's conditional formats restyle, evaluated as OSWorld's load_xlsx_styles does.

Rule by rule in the sheet's order, every formula of the rule is compiled and
its absolute ranges read (bench.formats.conditional_formulas); one the
`formulas` library cannot parse skips the rule, a single absolute cell
raises. Then, by the rule's type:

- "expression", "containsText", "notContainsText", "beginsWith", "endsWith",
  "containsErrors", "notContainsErrors": the first formula called with the
  cell's value and the ranges' values;
- "cellIs": the cell's value against the formulas' results (each called with
  no input; one that raises skips the rule) by the rule's operator
  (lessThan, equal, between, ...; a comparison Python cannot make is False);
- any other type: OSWorld logs it and tests the cells with the test it made
  last (the previous rule's, which then reads the ranges of this rule's last
  formula), or with none, which holds for no cell.

Each cell of the format's ranges with a value is tested (a test that raises
does not hold; one that holds for a rule without a formula raises, as
OSWorld's log line reads the rule's first formula); an empty cell is passed over, and after 51 empty cells in a
rule each range stops at its next empty cell. The cells a rule holds for
take its differential style. Values are read as OSWorld's read_cell_value
reads them, and the cells are fetched with openpyxl's `Worksheet.cell`, which
adds the ones that are not there, as OSWorld's loop does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from openpyxl.worksheet.worksheet import Worksheet

from bench.formats.conditional_formulas import compile_formula, coordinate, parser, range_arguments
from bench.suites.osworld.errors import MetricFailed

FORMULA_TYPES = frozenset({"expression", "containsText", "notContainsText", "endsWith", "beginsWith",
                           "containsErrors", "notContainsErrors"})
EMPTY_CELLS = 50
"""Empty cells a rule passes over before each of its ranges stops at the next one."""


def compare(operator: str, value: Any, references: list[Any]) -> Any:
    """OSWorld's _process_xlsx_cf_operator; an operator it does not know raises (it returns an unset name)."""
    try:
        if operator == "lessThanOrEqual":
            return value <= references[0]
        if operator == "lessThan":
            return value < references[0]
        if operator == "equal":
            return value == references[0]
        if operator == "greaterThanOrEqual":
            return value >= references[0]
        if operator == "notEqual":
            return value != references[0]
        if operator == "greaterThan":
            return value > references[0]
        if operator == "between":
            return value >= min(references) and value <= max(references)
        if operator == "notBetween":
            return value < min(references) or value > max(references)
    except (TypeError, IndexError):
        return False
    raise MetricFailed(f"compare_table style: conditional format operator {operator!r} is not one OSWorld knows")


class _Unbound(Exception):
    """No rule has set a test yet: OSWorld's call of its unbound `is_active` raises, and its try reads
    that as a test that does not hold."""


class _Tests:
    """What OSWorld's loop keeps in its local names from one rule to the next: the last formula test
    (`condition`), the last ranges read (`arguments`), the last cellIs operator and references, and
    which kind of test `is_active` last was."""

    def __init__(self) -> None:
        self.condition: Callable[..., Any] | None = None
        self.arguments: list[Any] = []
        self.operator = ""
        self.references: list[Any] = []
        self.active: str | None = None

    def holds(self, value: Any) -> Any:
        if self.active == "formula":
            return self.condition(value, *self.arguments)
        if self.active == "cellIs":
            return compare(self.operator, value, self.references)
        raise _Unbound  # OSWorld's `is_active` is not bound yet


def _compiled(formulas_parser: Any, rule: Any, tests: _Tests, value_of: Callable[[str], Any]) -> list[Any] | None:
    """The rule's compiled formulas, None when one does not parse (OSWorld skips the rule)."""
    formulae, argument_lists = [], []
    for formula in rule.formula:
        try:
            compiled = compile_formula(formulas_parser, formula)
        except Exception:  # noqa: BLE001 - OSWorld's bare except: the rule is skipped
            return None
        tests.arguments = range_arguments(formula, value_of)
        formulae.append(compiled)
        argument_lists.append(tests.arguments)
    return [formulae, argument_lists]


def _arm(rule: Any, formulae: list[Any], argument_lists: list[Any], tests: _Tests) -> bool:
    """Set the rule's test as OSWorld does; False when OSWorld skips the rule (a reference that raises)."""
    if rule.type in FORMULA_TYPES:
        if not formulae:
            raise MetricFailed(f"compare_table style: a {rule.type} conditional format without a formula "
                               "(OSWorld's function raises here)")
        tests.condition, tests.arguments, tests.active = formulae[0], argument_lists[0], "formula"
    elif rule.type == "cellIs":
        tests.operator = rule.operator
        try:
            tests.references = [formula() for formula in formulae]
        except Exception:  # noqa: BLE001 - OSWorld's bare except: the rule is skipped
            return False
        tests.active = "cellIs"
    return True


def _held(tests: _Tests, value: Any) -> bool:
    try:
        result = tests.holds(value)
    except Exception:  # noqa: BLE001 - OSWorld's try around the test: it does not hold
        return False
    return bool(result)  # outside OSWorld's try: a result without a truth value raises


def restyled_cells(sheet: Worksheet, value_of: Callable[[str], Any]) -> Iterator[tuple[Any, Any]]:
    """(cell, differential style) for each cell a rule holds for, rule by rule in the sheet's order;
    `value_of(coordinate)` reads a cell's value as OSWorld's read_cell_value does."""
    formats = list(sheet.conditional_formatting)
    if not formats:
        return
    try:
        formulas_parser = parser()
    except ImportError:
        raise MetricFailed("compare_table style: conditional formats are evaluated with the `formulas` library, "
                           "as OSWorld does: install troupe's osworld extra") from None
    tests = _Tests()
    for fmt in formats:
        for rule in fmt.rules:
            compiled = _compiled(formulas_parser, rule, tests, value_of)
            if compiled is None or not _arm(rule, *compiled, tests):
                continue
            active, empty = [], 0
            for cell_range in fmt.cells:
                for row, column in cell_range.cells:
                    cell = sheet.cell(row=row, column=column)
                    value = value_of(coordinate(row, column))
                    if value is None:
                        empty += 1
                        if empty > EMPTY_CELLS:
                            break
                        continue
                    if _held(tests, value):
                        if not rule.formula:
                            raise MetricFailed(f"compare_table style: a {rule.type} conditional format without a "
                                               f"formula holds for {cell.coordinate}, and OSWorld's log line for "
                                               "it reads its first formula (it raises here)")
                        active.append(cell)
            for cell in active:
                yield cell, rule.dxf
