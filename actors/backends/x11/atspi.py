"""Read the AT-SPI tree of a desktop straight over D-Bus (jeepney, pure Python).

pyatspi needs PyGObject and the system's GObject introspection, which a
virtualenv does not see; AT-SPI itself is a plain D-Bus protocol, so a few
method calls per node are all it takes. The calls are blocking and run in a
worker thread under `actors.backends.treewalk.Walk`'s caps and deadline,
a level of the tree at a time (`Walk.run_levels`): every call for every node
of a level is written at once before the first reply is read, so a level
costs a few round trips however wide it is.

The raw node is a dict: role (libatspi's role name, as every AT-SPI client
sees it), name, description, states (names), extents [x, y, w, h] in screen
pixels (absent when the toolkit reports the object off screen), text (for
objects with a Text interface), child_count; a node gone while the level
was read is `{"gone": True, "states": []}`. `actors.normalize.atspi` turns
it into UIElements. With `detail`, a node also carries what a pyatspi-based tree server
reads through pyatspi: `attributes` (a dict), `interfaces`, `value` (current,
minimum, maximum, step) and `actions` ([name, description, key binding]),
and its text is read whole.

The children of a node that is not showing are not read: what is not
showing cannot be acted on, and most of a GTK tree is closed menus. A node
with more children than the walk keeps (a spreadsheet's table answers
2^31 - 1) is not asked for all of them: its first ones are read by index.
"""

from __future__ import annotations

from typing import Any

from jeepney import DBusAddress, Message, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from actors.backends.treewalk import Walk, WalkLimits
from actors.backends.x11 import dbus_wire

ACCESSIBLE = "org.a11y.atspi.Accessible"
ACTION = "org.a11y.atspi.Action"
COMPONENT = "org.a11y.atspi.Component"
PROPERTIES = "org.freedesktop.DBus.Properties"
TEXT = "org.a11y.atspi.Text"
VALUE = "org.a11y.atspi.Value"
REGISTRY_ROOT = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
Ref = tuple[str, str]
_SCREEN_COORDS = 0
_OFF_SCREEN = -(2**31)
_SHOWING, _VISIBLE = 1 << 25, 1 << 30
_ACTION_PARTS = ("GetName", "GetDescription", "GetKeyBinding")
_BATCH = 4096
MAX_TEXT = 20_000
"""Characters of an object's text kept, unless `detail` asks for all of it."""

ROLES = (
    "invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas", "check box",
    "check menu item", "color chooser", "column header", "combo box", "date editor", "desktop icon", "desktop frame",
    "dial", "dialog", "directory pane", "drawing area", "file chooser", "filler", "focus traversable", "font chooser",
    "frame", "glass pane", "html container", "icon", "image", "internal frame", "label", "layered pane", "list",
    "list item", "menu", "menu bar", "menu item", "option pane", "page tab", "page tab list", "panel",
    "password text", "popup menu", "progress bar", "push button", "radio button", "radio menu item", "root pane",
    "row header", "scroll bar", "scroll pane", "separator", "slider", "spin button", "split pane", "status bar",
    "table", "table cell", "table column header", "table row header", "tearoff menu item", "terminal", "text",
    "toggle button", "tool bar", "tool tip", "tree", "tree table", "unknown", "viewport", "window", "extended",
    "header", "footer", "paragraph", "ruler", "application", "autocomplete", "editbar", "embedded", "entry", "chart",
    "caption", "document frame", "heading", "page", "section", "redundant object", "form", "link",
    "input method window", "table row", "tree item", "document spreadsheet", "document presentation",
    "document text", "document web", "document email", "comment", "list box", "grouping", "image map",
    "notification", "info bar", "level bar", "title bar", "block quote", "audio", "video", "definition", "article",
    "landmark", "log", "marquee", "math", "rating", "timer", "static", "math fraction", "math root", "subscript",
    "superscript", "description list", "description term", "description value", "footnote", "content deletion",
    "content insertion", "mark", "suggestion", "push button menu")
"""AtspiRole's names by number, as libatspi (and so pyatspi's getRoleName) gives them; the toolkit's own
GetRoleName differs for some ("statusbar")."""

# AtspiStateType bit numbers of the states worth keeping in the raw tree.
STATES = {4: "checked", 7: "editable", 8: "enabled", 12: "focused", 20: "pressed", 23: "selected", 25: "showing"}


class CallFailed(Exception):
    """An error reply to one call of a batch (the object is gone, the interface not there)."""


def a11y_bus_address(session_bus: str) -> str:
    """Ask the session bus where the accessibility bus is (org.a11y.Bus.GetAddress)."""
    with open_dbus_connection(bus=session_bus) as bus:
        launcher = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
        return bus.send_and_get_reply(new_method_call(launcher, "GetAddress"), timeout=5).body[0]


Call = tuple[Ref, str, str, "str | None", tuple]
"""One method call: (object ref, interface, method, signature, body), hashable so its bytes are kept."""
_ENCODED: dict[Call, bytes] = {}
_ENCODED_MAX = 50_000


def call(ref: Ref, interface: str, method: str, signature: str | None = None, body: tuple = ()) -> Call:
    return ref, interface, method, signature, body


def properties(ref: Ref, interface: str = ACCESSIBLE, name: str | None = None) -> Call:
    """All of an interface's properties (GetAll), or the one `name`d."""
    if name is None:
        return ref, PROPERTIES, "GetAll", "s", (interface,)
    return ref, PROPERTIES, "Get", "ss", (interface, name)


def message(call: Call) -> Message:
    ref, interface, method, signature, body = call
    return new_method_call(DBusAddress(ref[1], bus_name=ref[0], interface=interface), method, signature, body)


def encoded(call: Call, serial: int) -> bytes:
    """The call's bytes with `serial`. The same objects are asked the same calls every step, so each
    call is encoded once and then only its header's serial (bytes 8-11, little-endian) changes."""
    template = _ENCODED.get(call)
    if template is None:
        if len(_ENCODED) >= _ENCODED_MAX:
            _ENCODED.clear()
        ref, interface, method, signature, body = call
        template = _ENCODED[call] = dbus_wire.method_call(1, ref[0], ref[1], interface, method, signature, body)
    return template[:8] + serial.to_bytes(4, "little") + template[12:]


class AtspiReader:
    """Reads whole levels of the tree over one connection to the accessibility bus (`read_level`, for
    `Walk.run_levels`)."""

    def __init__(self, connection: DBusConnection, limits: WalkLimits, *, states: dict[int, str] = STATES,
                 detail: bool = False, timeout: float = 5.0) -> None:
        self.conn = connection
        self.limits = limits
        self.states = states
        self.detail = detail
        self.timeout = timeout
        self.role_names: dict[int, str] = dict(enumerate(ROLES))
        # jeepney authenticated the connection; its parser may hold the start of a message already read
        self.replies = dbus_wire.Replies(connection.sock, connection.parser.buf.peek(connection.parser.buf.bytes_buffered))
        connection.sock.settimeout(timeout)

    def batch(self, calls: list[Call]) -> list[Any]:
        """Write every call at once, then collect the replies: one round trip's latency, not n. A reply
        is the call's return values, or a CallFailed for an error reply."""
        if len(calls) > _BATCH:  # the bus queues what is written before it is read: keep that bounded
            return [reply for start in range(0, len(calls), _BATCH) for reply in self.batch(calls[start:start + _BATCH])]
        serials = {}
        data = []
        for index, one in enumerate(calls):
            serial = next(self.conn.outgoing_serial)
            data.append(encoded(one, serial))
            serials[serial] = index
        self.conn.sock.sendall(b"".join(data))
        replies: list[Any] = [None] * len(calls)
        while serials:
            kind, serial, body = self.replies.receive()
            index = serials.pop(serial, None)
            if index is not None:
                replies[index] = CallFailed(*body) if kind == dbus_wire.ERROR else body
        return replies

    def read_level(self, refs: list[Ref]) -> list[tuple[dict[str, Any], list[Ref]]]:
        """Per node of a level: its properties and its children (none for a node not showing)."""
        nodes = self._basics(refs)
        self._role_names(refs, nodes)
        children = self._details(refs, nodes)
        return [(node or {"gone": True, "states": []}, children.get(index, [])) for index, node in enumerate(nodes)]

    def _basics(self, refs: list[Ref]) -> list[dict[str, Any] | None]:
        calls = [(ACCESSIBLE, "GetRole"), (None, None), (ACCESSIBLE, "GetState"), (ACCESSIBLE, "GetInterfaces")]
        replies = self.batch([properties(ref) if interface is None else call(ref, interface, method)
                              for ref in refs for interface, method in calls])
        answers_of = [replies[index * len(calls):(index + 1) * len(calls)] for index in range(len(refs))]
        self._properties_one_by_one([(ref, answers) for ref, answers in zip(refs, answers_of) if answers[1] == ()])
        nodes: list[dict[str, Any] | None] = []
        for answers in answers_of:
            if any(isinstance(answer, CallFailed) for answer in answers):
                nodes.append(None)
                continue
            (role,), (props,), (words,), (interfaces,) = answers[:4]
            bits = sum(word << (32 * position) for position, word in enumerate(words))
            node: dict[str, Any] = {"role": role, "name": props.get("Name", ("s", ""))[1]}
            if description := props.get("Description", ("s", ""))[1]:
                node["description"] = description
            node["states"] = [state for bit, state in self.states.items() if bits >> bit & 1]
            node["child_count"] = props.get("ChildCount", ("i", -1))[1]
            node["_bits"], node["_interfaces"] = bits, interfaces
            if self.detail:
                node["attributes"] = props.get("Attributes", ("a{ss}", {}))[1]
                node["interfaces"] = [name.rsplit(".", 1)[-1] for name in interfaces]
            nodes.append(node)
        return nodes

    def _properties_one_by_one(self, unanswered: list[tuple[Ref, list[Any]]]) -> None:
        """The registry's root answers GetAll with nothing: its properties are asked one at a time."""
        names = ("Name", "Description", "ChildCount")
        replies = iter(self.batch([properties(ref, name=name) for ref, _ in unanswered for name in names]))
        for _, answers in unanswered:
            got = {name: next(replies) for name in names}
            answers[1] = ({name: reply[0] for name, reply in got.items() if not isinstance(reply, CallFailed)},)

    def _role_names(self, refs: list[Ref], nodes: list[dict[str, Any] | None]) -> None:
        """Roles past libatspi's table are named by the toolkit (GetRoleName)."""
        unknown = {node["role"]: ref for ref, node in zip(refs, nodes) if node and node["role"] not in self.role_names}
        for role, reply in zip(unknown, self.batch([call(ref, ACCESSIBLE, "GetRoleName") for ref in unknown.values()])):
            self.role_names[role] = "unknown" if isinstance(reply, CallFailed) else reply[0]
        for node in nodes:
            if node:
                node["role"] = self.role_names[node["role"]]

    def showing(self, node: dict[str, Any]) -> bool:
        return bool(node["_bits"] & _SHOWING) or node["role"] in ("application", "desktop frame")

    def lists_children(self, ref: Ref, node: dict[str, Any]) -> bool:
        """Whether GetChildren may be asked: not of a node with more children than the walk keeps."""
        return node["child_count"] <= self.limits.max_children

    def _details(self, refs: list[Ref], nodes: list[dict[str, Any] | None]) -> dict[int, list[Ref]]:
        """Extents, text, value and actions, and the children: one batch for the level."""
        calls: list[Call] = []
        wanted: list[tuple[int, str]] = []
        by_index: list[int] = []

        def ask(index: int, what: str, one: Call) -> None:
            calls.append(one)
            wanted.append((index, what))

        for index, (ref, node) in enumerate(zip(refs, nodes)):
            if node is None:
                continue
            interfaces, showing = node.pop("_interfaces"), self.showing(node)
            on_screen = showing and (not self.detail or node["_bits"] & _VISIBLE)
            if COMPONENT in interfaces and on_screen:
                ask(index, "extents", call(ref, COMPONENT, "GetExtents", "u", (_SCREEN_COORDS,)))
            if TEXT in interfaces and (showing or self.detail):
                ask(index, "text", call(ref, TEXT, "GetText", "ii", (0, -1 if self.detail else MAX_TEXT)))
            if self.detail and VALUE in interfaces:
                ask(index, "value", properties(ref, VALUE))
            if self.detail and ACTION in interfaces:
                ask(index, "actions", properties(ref, ACTION, "NActions"))
                for part, method in enumerate(_ACTION_PARTS):  # the first action's: most have one at most
                    ask(index, f"action {part}", call(ref, ACTION, method, "i", (0,)))
            if showing and node["child_count"]:
                if self.lists_children(ref, node):
                    ask(index, "children", call(ref, ACCESSIBLE, "GetChildren"))
                else:
                    by_index.append(index)
        children: dict[int, list[Ref]] = {}
        for (index, what), reply in zip(wanted, self.batch(calls)):
            if isinstance(reply, CallFailed):
                continue
            node = nodes[index]
            if what == "extents":
                x, y, w, h = reply[0]
                if self.detail or (x != _OFF_SCREEN and w >= 0 and h >= 0):
                    node["extents"] = [x, y, w, h]
            elif what == "text":
                node["text"] = reply[0]
            elif what == "value":
                values = reply[0]
                node["value"] = [values.get(key, ("d", None))[1]
                                 for key in ("CurrentValue", "MinimumValue", "MaximumValue", "MinimumIncrement")]
            elif what == "actions":
                node["actions"] = [["", "", ""] for _ in range(reply[0][1])]
            elif what.startswith("action "):
                if node.get("actions"):
                    node["actions"][0][int(what[-1])] = reply[0]
            else:
                children[index] = [tuple(child) for child in reply[0]]
        if self.detail:
            self._action_names(refs, nodes)
        if by_index:
            wide = self.children_by_index([(refs[index], nodes[index]) for index in by_index])
            children.update(zip(by_index, wide))
        for node in nodes:
            if node:
                del node["_bits"]
        return children

    def _action_names(self, refs: list[Ref], nodes: list[dict[str, Any] | None]) -> None:
        """The name, description and key binding of each action past the first, as pyatspi asks them
        (GetActions' triples differ: a localized name, and Gecko's descriptions are not GetDescription's)."""
        asked = [(node, position, part) for node in nodes if node and "actions" in node
                 for position in range(1, len(node["actions"])) for part in range(len(_ACTION_PARTS))]
        refs_of = {id(node): ref for ref, node in zip(refs, nodes) if node}
        replies = self.batch([call(refs_of[id(node)], ACTION, _ACTION_PARTS[part], "i", (position,))
                              for node, position, part in asked])
        for (node, position, part), reply in zip(asked, replies):
            if not isinstance(reply, CallFailed):
                node["actions"][position][part] = reply[0]

    def children_by_index(self, parents: list[tuple[Ref, dict[str, Any]]]) -> list[list[Ref]]:
        """The first children, as many as the walk keeps, of nodes too wide to list (GetChildAtIndex)."""
        counts = [min(node["child_count"], self.limits.max_children) for _, node in parents]
        replies = iter(self.batch([call(ref, ACCESSIBLE, "GetChildAtIndex", "i", (position,))
                                   for (ref, _), count in zip(parents, counts) for position in range(count)]))
        answers = [[next(replies) for _ in range(count)] for count in counts]
        return [[tuple(reply[0]) for reply in replies_of if not isinstance(reply, CallFailed)]
                for replies_of in answers]


def connect(session_bus: str) -> DBusConnection:
    """A connection to the accessibility bus of the desktop whose session bus is `session_bus`."""
    return open_dbus_connection(bus=a11y_bus_address(session_bus))


def capture(session_bus: str, walk: Walk, states: dict[int, str] = STATES) -> dict[str, Any]:
    """The whole desktop: the registry's root with one child per application; `states` the
    AtspiStateType bits kept, by name."""
    with connect(session_bus) as connection:
        return walk.run_levels(REGISTRY_ROOT, AtspiReader(connection, walk.limits, states=states).read_level)
