"""The desktop's accessibility tree in OSWorld's own XML, as its server's /accessibility answers on Ubuntu.

OSWorld's tree-reading getters and metrics match on its form: a
`desktop-frame` root, one element per AT-SPI node named by its role (spaces
as "-"), the accessible name in `name`, each state set as
`st:<state>="true"`, the position and size as `cp:screencoord="(x, y)"`
and `cp:size="(w, h)"` for nodes both visible and showing, and the node's
text (object replacement characters removed) as element text, in the
namespaces `https://accessibility.ubuntu.example.org/ns/*`. The tree is read
over D-Bus (actors.backends.x11.atspi); the children of a node that is not
showing are not read (closed menus, other tabs), where OSWorld's walks them
too. Attributes, actions, values and the Calc-table special case are not in
it.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from actors.backends.treewalk import Walk, WalkLimits
from actors.backends.x11 import atspi

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
LIMITS = WalkLimits(max_depth=50, max_children=1024, max_nodes=20_000, seconds=20.0)
"""OSWorld's own depth and width caps."""


def _element(node: dict[str, Any]) -> str:
    tag = (node.get("role") or "unknown").strip().replace(" ", "-") or "unknown"
    attributes = [f"name={quoteattr(node.get('name', ''))}"]
    states = node.get("states", [])
    attributes += [f'st:{state}="true"' for state in states]
    if "visible" in states and "showing" in states and node.get("extents"):
        x, y, w, h = node["extents"]
        attributes += [f'cp:screencoord="({x}, {y})"', f'cp:size="({w}, {h})"']
    text = escape(node.get("text", "").replace("\ufffc", "").replace("\ufffd", ""))
    children = "".join(_element(child) for child in node.get("children", []) if child)
    return f"<{tag} {' '.join(attributes)}>{text}{children}</{tag}>"


def to_xml(desktop: dict[str, Any]) -> str:
    """A tree `atspi.capture` read, from the registry's root, as OSWorld's XML."""
    spaces = " ".join(f'xmlns:{prefix}="{uri}"' for prefix, uri in NAMESPACES.items())
    applications = "".join(_element(child) for child in desktop.get("children", []) if child)
    return f"<desktop-frame {spaces}>{applications}</desktop-frame>"


def capture(session_bus: str) -> str:
    return to_xml(atspi.capture(session_bus, Walk(LIMITS), states=STATES))
