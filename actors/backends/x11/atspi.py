"""Read the AT-SPI tree of a desktop straight over D-Bus (jeepney, pure Python).

pyatspi needs PyGObject and the system's GObject introspection, which a
virtualenv does not see; AT-SPI itself is a plain D-Bus protocol, so a few
method calls per node are all it takes. The calls are blocking and run in a
worker thread under `actors.backends.treewalk.Walk`'s caps and deadline, a
level of the tree at a time: every call of a level is sent before the
replies are read, so a level costs a few round trips to the applications
rather than a few per node.

The raw node is a dict: role (AT-SPI's role name), name, description,
states (names), extents [x, y, w, h] in screen pixels or absent when the
toolkit reports the object off screen, text (for objects with a Text
interface), child_count. `actors.normalize.atspi` turns it into UIElements.
"""

from __future__ import annotations

import time
from typing import Any

from jeepney import DBusAddress, HeaderFields, Message, new_method_call
from jeepney.wrappers import DBusErrorResponse, unwrap_msg
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from actors.backends.treewalk import Walk

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
TEXT = "org.a11y.atspi.Text"
REGISTRY_ROOT = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
_SCREEN_COORDS = 0
_OFF_SCREEN = -(2**31)
MAX_TEXT = 20_000

# AtspiStateType bit numbers of the states worth keeping in the raw tree.
STATES = {4: "checked", 7: "editable", 8: "enabled", 12: "focused", 20: "pressed", 23: "selected", 25: "showing"}


def a11y_bus_address(session_bus: str) -> str:
    """Ask the session bus where the accessibility bus is (org.a11y.Bus.GetAddress)."""
    with open_dbus_connection(bus=session_bus) as bus:
        launcher = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
        return bus.send_and_get_reply(new_method_call(launcher, "GetAddress"), timeout=5).body[0]


Call = tuple[tuple[str, str], str, str, "str | None", tuple]
"""One method call: (object ref, interface, method, signature, body), hashable so its bytes are kept."""
PROPERTIES = "org.freedesktop.DBus.Properties"
_ENCODED: dict[Call, bytes] = {}
_ENCODED_MAX = 50_000


def message(call: Call) -> Message:
    ref, interface, method, signature, body = call
    return new_method_call(DBusAddress(ref[1], bus_name=ref[0], interface=interface), method, signature, body)


def encoded(call: Call, serial: int) -> bytes:
    """The call's bytes with `serial`. Encoding is most of a capture's CPU and the same objects are
    asked the same calls every step, so each call is encoded once and then only its header's serial
    (bytes 8-11, little-endian as jeepney writes them) changes."""
    template = _ENCODED.get(call)
    if template is None:
        if len(_ENCODED) >= _ENCODED_MAX:
            _ENCODED.clear()
        template = _ENCODED[call] = message(call).serialise(serial=1)
    return template[:8] + serial.to_bytes(4, "little") + template[12:]


class AtspiReader:
    """The level reader a Walk needs (`Walk.run_levels`), over one connection to the accessibility bus."""

    def __init__(self, connection: DBusConnection, timeout: float = 5.0, states: dict[int, str] = STATES) -> None:
        self.conn = connection
        self.timeout = timeout
        self.states = states
        self.role_names: dict[int, str] = {}

    @staticmethod
    def _message(ref: tuple[str, str], interface: str, method: str, signature: str | None = None,
                 body: tuple = ()) -> Call:
        return ref, interface, method, signature, body

    @staticmethod
    def _property(ref: tuple[str, str], name: str | None = None) -> Call:
        """One of the Accessible interface's properties (Name, Description, ChildCount, ...) of `ref`, or
        all of them."""
        if name is None:
            return ref, PROPERTIES, "GetAll", "s", (ACCESSIBLE,)
        return ref, PROPERTIES, "Get", "ss", (ACCESSIBLE, name)

    def _batch(self, *calls: Call, optional: frozenset[int] = frozenset()) -> list[Any]:
        """Send every call at once (one write), then collect the replies: one round trip's latency, not n.
        An error answers None for the calls whose index is `optional`, and raises for the others."""
        serials = {}
        data = []
        for index, call in enumerate(calls):
            serial = next(self.conn.outgoing_serial)
            data.append(encoded(call, serial))
            serials[serial] = index
        self.conn.sock.sendall(b"".join(data))
        replies: list[Any] = [None] * len(calls)
        deadline = time.monotonic() + self.timeout
        while serials:
            reply = self.conn.receive(timeout=max(0.0, deadline - time.monotonic()))
            index = serials.pop(reply.header.fields.get(HeaderFields.reply_serial, -1), None)
            if index is None:
                continue
            try:
                replies[index] = unwrap_msg(reply)
            except DBusErrorResponse:
                if index not in optional:
                    raise
        return replies

    def _basics(self, refs: list[tuple[str, str]]) -> tuple[list[int], list[tuple]]:
        """Each node's role number, properties and state words, in one round trip."""
        calls = [self._message(ref, ACCESSIBLE, "GetRole") for ref in refs]
        calls += [call for ref in refs for call in (self._property(ref), self._message(ref, ACCESSIBLE, "GetState"))]
        replies = self._batch(*calls)
        roles, rest = [reply[0] for reply in replies[:len(refs)]], replies[len(refs):]
        basics = [(rest[2 * i][0] if rest[2 * i] else {}, rest[2 * i + 1][0]) for i in range(len(refs))]
        bare = [index for index, (properties, _) in enumerate(basics) if not properties]
        if bare:  # at-spi's registry answers GetAll with nothing: its properties one by one
            names = ("Name", "Description", "ChildCount")
            named = self._batch(*(self._property(refs[index], name) for index in bare for name in names))
            for place, index in enumerate(bare):
                basics[index] = (dict(zip(names, (reply[0] for reply in named[3 * place:3 * place + 3]))),
                                 basics[index][1])
        return roles, basics

    def _learn_roles(self, refs: list[tuple[str, str]], roles: list[int]) -> None:
        unseen = list(dict.fromkeys(role for role in roles if role not in self.role_names))
        if unseen:
            first = {role: refs[roles.index(role)] for role in unseen}
            names = self._batch(*(self._message(first[role], ACCESSIBLE, "GetRoleName") for role in unseen))
            self.role_names.update((role, name[0]) for role, name in zip(unseen, names))

    def _expand(self, showing: list[tuple[tuple[str, str], dict[str, Any]]]) -> list[list[tuple[str, str]]]:
        """The children of the nodes showing, and their position and text, in one round trip. Position
        and text are asked of every one: an object without the Component or Text interface answers
        with an error, which leaves the field out, as asking for its interfaces first would."""
        calls = [call for ref, _ in showing for call in (
            self._message(ref, ACCESSIBLE, "GetChildren"),
            self._message(ref, COMPONENT, "GetExtents", "u", (_SCREEN_COORDS,)),
            self._message(ref, TEXT, "GetText", "ii", (0, MAX_TEXT)))]
        replies = self._batch(*calls, optional=frozenset(i for i in range(len(calls)) if i % 3))
        children = []
        for index, (_, node) in enumerate(showing):
            kids, extents, text = replies[3 * index:3 * index + 3]
            children.append([tuple(child) for child in kids[0]])
            if extents is not None:
                x, y, w, h = extents[0]
                if x != _OFF_SCREEN and w >= 0 and h >= 0:
                    node["extents"] = [x, y, w, h]
            if text is not None:
                node["text"] = text[0]
        return children

    def read_level(self, refs: list[tuple[str, str]]) -> list[tuple[dict[str, Any], list[tuple[str, str]]]]:
        """Each node's properties and children, for a level of the tree in a few round trips: its
        properties, then the names of roles not seen yet, then the children, position and text of the
        nodes showing. What is not showing is not walked further (most of a GTK tree is closed menus)."""
        roles, basics = self._basics(refs)
        self._learn_roles(refs, roles)
        nodes: list[dict[str, Any]] = []
        showing: list[tuple[tuple[str, str], dict[str, Any]]] = []
        for ref, role, (properties, words) in zip(refs, roles, basics):
            node: dict[str, Any] = {"role": self.role_names[role], "name": properties.get("Name", ("s", ""))[1]}
            if properties.get("Description", ("s", ""))[1]:
                node["description"] = properties["Description"][1]
            bits = sum(word << (32 * place) for place, word in enumerate(words))
            node["states"] = [state for bit, state in self.states.items() if bits >> bit & 1]
            node["child_count"] = properties.get("ChildCount", ("i", 0))[1]
            nodes.append(node)
            if "showing" in node["states"] or node["role"] in ("application", "desktop frame"):
                showing.append((ref, node))
        children = dict(zip((id(node) for _, node in showing), self._expand(showing))) if showing else {}
        return [(node, children.get(id(node), [])) for node in nodes]


def capture(session_bus: str, walk: Walk, states: dict[int, str] = STATES) -> dict[str, Any]:
    """The whole desktop: the registry's root with one child per application; `states` the
    AtspiStateType bits kept, by name."""
    with open_dbus_connection(bus=a11y_bus_address(session_bus)) as connection:
        reader = AtspiReader(connection, states=states)
        return walk.run_levels(REGISTRY_ROOT, reader.read_level)
