"""The desktop's accessibility tree in OSWorld's own XML, as its server's /accessibility answers on Ubuntu.

OSWorld's tree-reading getters and metrics, and agents' prompts, match on
its form (server/main.py's `_create_atspi_node`): a `desktop-frame` root,
one element per AT-SPI node named by its role (libatspi's role name, spaces
as "-"), with, in this order, the accessible name in `name`; each state set
as `st:<state>="true"`; the object's attributes as `attr:<key>`; for nodes
both visible and showing the position and size as `cp:screencoord="(x, y)"`
and `cp:size="(w, h)"`; `image="true"` and `selection="true"` for objects
with those interfaces; a Value's `val:value`, `val:min`, `val:max` and
`val:step` (Python's str of the number); each action's `act:<name>_desc` and
`act:<name>_kb` (name's spaces as "-"); and the node's whole text (object
replacement characters removed) as element text, in the namespaces
`https://accessibility.ubuntu.example.org/ns/*`.

Below a LibreOffice Calc document (`document spreadsheet`), a `table`'s
children are its visible cells, found as OSWorld finds them: row by row,
the first showing cell within the first 500 columns of the first 500 rows,
then per row the showing cells from that column on, until a row's first
one is not showing; cell (r, c) is child r * columns + c. The first showing
cell is the one at the table's top-left pixel, asked directly (OSWorld's
scan of a sheet scrolled down asks 501 cells per row above it), and the
rest are probed many cells per round trip.

Where this differs from OSWorld's server, on purpose: the children of a node
that is not showing are not read (closed menus, other tabs; most of a GTK
tree, and most of its time); applications come in the registry's order
(OSWorld's threads append them as they finish); an attribute whose key is
no XML name, and characters XML cannot carry, are left out (lxml raises on
them, and OSWorld's walk then drops the node and its later siblings).
"""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from jeepney.io.blocking import DBusConnection

from actors.backends.treewalk import Walk, WalkLimits
from actors.backends.x11 import atspi
from actors.backends.x11.atspi import ACCESSIBLE, COMPONENT, AtspiReader, CallFailed, Ref, call, properties

UBUNTU = "https://accessibility.ubuntu.example.org/ns"
NAMESPACES = {prefix: f"{UBUNTU}/{path}" for prefix, path in (
    ("st", "state"), ("attr", "attributes"), ("cp", "component"), ("doc", "document"),
    ("docattr", "document/attributes"), ("txt", "text"), ("val", "value"), ("act", "action"))}
STATES = dict(enumerate((
    "invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable", "enabled", "expandable",
    "expanded", "focusable", "focused", "has_tooltip", "horizontal", "iconified", "modal", "multi_line",
    "multiselectable", "opaque", "pressed", "resizable", "selectable", "selected", "sensitive", "showing",
    "single_line", "stale", "transient", "vertical", "visible", "manages_descendants", "indeterminate", "required",
    "truncated", "animated", "invalid_entry", "supports_autocompletion", "selectable_text", "is_default", "visited",
    "checkable", "has_popup", "read_only")))
"""AtspiStateType's bits by name, as pyatspi's StateType names them without `STATE_`, lower case."""
LIMITS = WalkLimits(max_depth=50, max_children=1024, max_nodes=50_000, seconds=20.0)
"""OSWorld's own depth and width caps."""
SCAN = 500
"""OSWorld looks for a sheet's first showing cell in this many rows and columns."""
PROBE = 64
"""Cells whose showing state is asked at once while looking for where a sheet's visible part starts and ends."""
TABLE = "org.a11y.atspi.Table"
_SHOWING = 1 << 25
_XML_NAME = re.compile(r"[A-Za-z_][\w.\-]*\Z")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_REPLACEMENTS = re.compile("[\ufffc\ufffd]")


class OSWorldReader(AtspiReader):
    """Every detail OSWorld's server reads, and Calc's visible cells in place of its table's 2^31 children."""

    def __init__(self, connection: DBusConnection, limits: WalkLimits) -> None:
        super().__init__(connection, limits, states=STATES, detail=True)
        self.in_sheet: set[Ref] = set()

    def read_level(self, refs: list[Ref]) -> list[tuple[dict[str, Any], list[Ref]]]:
        level = super().read_level(refs)
        for ref, (node, children) in zip(refs, level):
            if ref in self.in_sheet or node.get("role") == "document spreadsheet":
                self.in_sheet.update(children)
        return level

    def lists_children(self, ref: Ref, node: dict[str, Any]) -> bool:
        return not self._is_sheet(ref, node) and super().lists_children(ref, node)

    def _is_sheet(self, ref: Ref, node: dict[str, Any]) -> bool:
        return ref in self.in_sheet and node["role"] == "table"

    def children_by_index(self, parents: list[tuple[Ref, dict[str, Any]]]) -> list[list[Ref]]:
        others = super().children_by_index([(ref, node) for ref, node in parents if not self._is_sheet(ref, node)])
        return [self.visible_cells(ref, node) if self._is_sheet(ref, node) else others.pop(0) for ref, node in parents]

    def _showing(self, table: Ref, indices: list[int]) -> list[Ref | None]:
        """The children at `indices`, None for each one not showing (two round trips for them all)."""
        refs = [None if isinstance(reply, CallFailed) else tuple(reply[0]) for reply in
                self.batch([call(table, ACCESSIBLE, "GetChildAtIndex", "i", (index,)) for index in indices])]
        states = self.batch([call(ref, ACCESSIBLE, "GetState") for ref in refs if ref])
        showing = iter(not isinstance(reply, CallFailed) and bool(reply[0][0] & _SHOWING) for reply in states)
        return [ref if ref and next(showing) else None for ref in refs]

    def _runs(self, table: Ref, columns: int, rows: list[int], start: int, width: int) -> list[list[Ref]]:
        """Per row, its showing cells from column `start` on, up to the first that is not."""
        runs: list[list[Ref]] = [[] for _ in rows]
        going, offset = list(range(len(rows))), start
        while going and offset < columns:
            span = range(offset, min(offset + width, columns))
            cells = iter(self._showing(table, [rows[row] * columns + column for row in going for column in span]))
            still = []
            for row in going:
                probed = [next(cells) for _ in span]
                showing = next((position for position, cell in enumerate(probed) if cell is None), len(probed))
                runs[row] += probed[:showing]
                if showing == len(probed):
                    still.append(row)
            going, offset = still, offset + width
        return runs

    def _corner_run(self, table: Ref, node: dict[str, Any], columns: int) -> tuple[int, int, list[Ref]] | None:
        """The first showing cell as OSWorld's scan finds it, without the scan: the cell at the table's
        top-left pixel, since no cell above it or left of it shows (frozen rows and columns included, which
        are the top and left of the grid), and the showing cells that follow it in its row. None when the
        table says no such cell, or it is past the scan's SCAN rows or columns."""
        if "extents" not in node:
            return None
        x, y, _, _ = node["extents"]
        (at,) = self.batch([call(table, COMPONENT, "GetAccessibleAtPoint", "iiu", (x, y, 0))])
        if isinstance(at, CallFailed) or at[0][1].endswith("/null"):
            return None
        (index,) = self.batch([call(tuple(at[0]), ACCESSIBLE, "GetIndexInParent")])
        if isinstance(index, CallFailed) or index[0] < 0:
            return None
        row, column = divmod(index[0], columns)
        if row > SCAN or column > SCAN or not self._showing(table, [index[0]])[0]:
            return None
        run = self._runs(table, columns, [row], column, PROBE)[0]
        return row, column, run

    def _first_run(self, table: Ref, columns: int, row: int) -> tuple[int, int, list[Ref]] | None:
        """The row's first showing cell within its first SCAN + 1 columns, probed a stretch at a time, and
        the showing cells that follow it."""
        for offset in range(0, min(columns, SCAN + 1), PROBE):
            span = range(offset, min(offset + PROBE, SCAN + 1, columns))
            probed = self._showing(table, [row * columns + column for column in span])
            start = next((position for position, cell in enumerate(probed) if cell), None)
            if start is None:
                continue
            run = probed[start:]
            if None in run:
                return row, offset + start, run[:run.index(None)]
            return row, offset + start, run + self._runs(table, columns, [row], span.stop, PROBE)[0]
        return None

    def visible_cells(self, table: Ref, node: dict[str, Any]) -> list[Ref]:
        reply = self.batch([properties(table, TABLE)])[0]
        if isinstance(reply, CallFailed):
            return []
        columns, rows = reply[0]["NColumns"][1], reply[0]["NRows"][1]
        found, row = self._corner_run(table, node, columns), 0
        while found is None and row < min(rows, SCAN + 1):
            found, row = self._first_run(table, columns, row), row + 1
        if found is None:
            return []
        row, start, first = found
        below = range(row + 1, rows)
        # how far down the first column shows, probed a stretch at a time; then those rows in full
        last = row
        while last + 1 < rows:
            stretch = list(range(last + 1, min(last + 1 + PROBE, rows)))
            shown = self._showing(table, [r * columns + start for r in stretch])
            count = next((position for position, cell in enumerate(shown) if cell is None), len(shown))
            last += count
            if count < len(shown):
                break
        cells = list(first)
        for run in self._runs(table, columns, list(below[:last - row]), start, len(first) + 1):
            cells += run
        return cells


def _xml(value: str) -> str:
    return _NOT_XML.sub("", value)


def _attributes(node: dict[str, Any]) -> list[str]:
    attributes = [f"name={quoteattr(_xml(node.get('name', '')))}"]
    states = node.get("states", [])
    attributes += [f'st:{state}="true"' for state in states]
    attributes += [f"attr:{key}={quoteattr(_xml(value))}" for key, value in node.get("attributes", {}).items()
                   if _XML_NAME.match(key)]
    if "visible" in states and "showing" in states and "extents" in node:
        x, y, w, h = node["extents"]
        attributes += [f'cp:screencoord="({x}, {y})"', f'cp:size="({w}, {h})"']
    interfaces = node.get("interfaces", [])
    attributes += [f'{flag}="true"' for flag, interface in (("image", "Image"), ("selection", "Selection"))
                   if interface in interfaces]
    if "value" in node:
        attributes += [f'val:{key}="{number}"' for key, number in zip(("value", "min", "max", "step"), node["value"])
                       if number is not None]
    actions: dict[str, str] = {}
    for name, description, binding in node.get("actions", []):
        actions[f"act:{name.replace(' ', '-')}_desc"] = description
        actions[f"act:{name.replace(' ', '-')}_kb"] = binding
    attributes += [f"{key}={quoteattr(_xml(value))}" for key, value in actions.items() if _XML_NAME.match(key[4:])]
    return attributes


def _element(node: dict[str, Any]) -> str:
    tag = (node.get("role") or "unknown").strip().replace(" ", "-") or "unknown"
    text = escape(_xml(_REPLACEMENTS.sub("", node.get("text", ""))))
    children = "".join(_element(child) for child in node.get("children", []) if child and "gone" not in child)
    return f"<{tag} {' '.join(_attributes(node))}>{text}{children}</{tag}>"


def to_xml(desktop: dict[str, Any]) -> str:
    """A tree `OSWorldReader` read, from the registry's root, as OSWorld's XML."""
    spaces = " ".join(f'xmlns:{prefix}="{uri}"' for prefix, uri in NAMESPACES.items())
    applications = "".join(_element(child) for child in desktop.get("children", [])
                           if child and "gone" not in child)
    return f"<desktop-frame {spaces}>{applications}</desktop-frame>"


def capture(session_bus: str) -> str:
    walk = Walk(LIMITS)
    with atspi.connect(session_bus) as connection:
        return to_xml(walk.run_levels(atspi.REGISTRY_ROOT, OSWorldReader(connection, walk.limits).read_level))
