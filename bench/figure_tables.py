"""A suite's own figures (summary.json under the suite's name) as HTML tables, whatever their shape.

A suite's `figures` are nested JSON its authors chose (Mind2Web's: an
`overall` block and, per split, a block with its websites and domains), and
the report knows no suite. So the shape decides the layout:

- a dict whose values are all dicts is a table, one row per entry;
- any other dict is a row: its values are its cells, a nested row's cells
  become columns named by both keys ("micro operation f1"), and a nested table
  is shown after it, titled by the path to it ("splits › test_task › websites");
- the figures themselves are a table: their rows first, their plain values
  beside the title.

A value is shown as the report's metrics are (`figure_text`). Every key and
value is escaped: names (websites, domains) come from the suite's data.
"""

from __future__ import annotations

import html
import json

__all__ = ["figure_tables", "figure_text"]

PATH_SEPARATOR = " › "


def figure_tables(title: str, figures) -> str:
    """`figures` as HTML: one table per table in them, each headed by where it is."""
    if not isinstance(figures, dict):
        return f"<p>{html.escape(title)}: {html.escape(figure_text(figures))}</p>"
    return "\n".join(_tables(title, figures))


def _is_table(value) -> bool:
    return isinstance(value, dict) and bool(value) and all(isinstance(item, dict) for item in value.values())


def _tables(title: str, table: dict) -> list[str]:
    """`table` as its own table (rows: its dict entries; its plain values beside the title), then every
    table nested in it, in order."""
    notes, rows, nested = _parts(table, title)
    cells: dict[str, dict] = {}
    for key, row in rows.items():
        cells[key], inner = _row(row, f"{title}{PATH_SEPARATOR}{key}")
        nested += inner
    heading = html.escape(title) + "".join(f"; {html.escape(_name(key))}: {html.escape(figure_text(value))}"
                                           for key, value in notes.items())
    parts = [f"<h3>{heading}</h3>{_table(cells)}" if cells else f"<h3>{heading}</h3>"]
    for path, value in nested:
        parts += _tables(path, value)
    return parts


def _row(row: dict, path: str, prefix: str = "") -> tuple[dict[str, object], list[tuple[str, dict]]]:
    """A row's cells by column (a nested row's under both keys) and the tables nested in it, by path."""
    plain, rows, nested = _parts(row, path)
    cells = {prefix + key: value for key, value in plain.items()}
    for key, inner in rows.items():
        inner_cells, inner_nested = _row(inner, f"{path}{PATH_SEPARATOR}{key}", f"{prefix}{key} ")
        cells |= inner_cells
        nested += inner_nested
    return cells, nested


def _parts(value: dict, path: str) -> tuple[dict[str, object], dict[str, dict], list[tuple[str, dict]]]:
    """`value`'s plain entries, its rows, and its tables by their path."""
    plain: dict[str, object] = {}
    rows: dict[str, dict] = {}
    tables: list[tuple[str, dict]] = []
    for key, item in value.items():
        if _is_table(item):
            tables.append((f"{path}{PATH_SEPARATOR}{key}", item))
        elif isinstance(item, dict):
            rows[key] = item
        else:
            plain[key] = item
    return plain, rows, tables


def _table(rows: dict[str, dict]) -> str:
    """Rows under the union of their columns, in the order first seen; a cell a row lacks is empty."""
    columns = list(dict.fromkeys(column for cells in rows.values() for column in cells))
    head = "".join(f"<th>{html.escape(_name(column))}</th>" for column in columns)
    body = "".join(
        f"<tr><th>{html.escape(name)}</th>"
        + "".join(f"<td>{html.escape(figure_text(cells[c])) if c in cells else ''}</td>" for c in columns) + "</tr>"
        for name, cells in rows.items())
    return f'<table class="figures"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>'


def _name(key: str) -> str:
    return key.replace("_", " ")


def figure_text(value) -> str:
    """A value as the report shows it: "n/a" for null (a rate over nothing is undefined, not 0),
    floats to four significant figures, a pair of numbers as an interval "[low, high]"."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) == 2 and all(_number(item) for item in value):
        return f"[{figure_text(value[0])}, {figure_text(value[1])}]"
    return json.dumps(value)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
