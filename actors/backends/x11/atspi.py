"""Read the AT-SPI tree of a desktop straight over D-Bus (jeepney, pure Python).

pyatspi needs PyGObject and the system's GObject introspection, which a
virtualenv does not see; AT-SPI itself is a plain D-Bus protocol, so a few
method calls per node are all it takes. The calls are blocking and run in a
worker thread under `actors.backends.treewalk.Walk`'s caps and deadline.

The raw node is a dict: role (AT-SPI's role name), name, description,
states (names), extents [x, y, w, h] in screen pixels or absent when the
toolkit reports the object off screen, text (for objects with a Text
interface), child_count. `actors.normalize.atspi` turns it into UIElements.
"""

from __future__ import annotations

import time
from typing import Any

from jeepney import DBusAddress, HeaderFields, Message, Properties, new_method_call
from jeepney.wrappers import unwrap_msg
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


class AtspiReader:
    """The two callbacks a Walk needs, over one connection to the accessibility bus."""

    def __init__(self, connection: DBusConnection, timeout: float = 5.0, states: dict[int, str] = STATES) -> None:
        self.conn = connection
        self.timeout = timeout
        self.states = states
        self.role_names: dict[int, str] = {}
        self.hidden: set[tuple[str, str]] = set()

    def _message(self, ref: tuple[str, str], interface: str, method: str, signature: str | None = None,
                 body: tuple = ()) -> Message:
        return new_method_call(DBusAddress(ref[1], bus_name=ref[0], interface=interface), method, signature, body)

    def _property(self, ref: tuple[str, str], name: str) -> Message:
        return Properties(DBusAddress(ref[1], bus_name=ref[0], interface=ACCESSIBLE)).get(name)

    def _batch(self, *messages: Message) -> list[Any]:
        """Send every call at once, then collect the replies: one round trip's latency, not n."""
        serials = {}
        for index, message in enumerate(messages):
            serial = next(self.conn.outgoing_serial)
            self.conn.send(message, serial=serial)
            serials[serial] = index
        replies: list[Any] = [None] * len(messages)
        deadline = time.monotonic() + self.timeout
        while serials:
            reply = self.conn.receive(timeout=max(0.0, deadline - time.monotonic()))
            index = serials.pop(reply.header.fields.get(HeaderFields.reply_serial, -1), None)
            if index is not None:
                replies[index] = unwrap_msg(reply)
        return replies

    def children(self, ref: tuple[str, str]) -> list[tuple[str, str]]:
        if ref in self.hidden:
            return []  # what is not showing cannot be acted on; most of a GTK tree is closed menus
        (children,) = self._batch(self._message(ref, ACCESSIBLE, "GetChildren"))[0]
        return [tuple(child) for child in children]

    def read(self, ref: tuple[str, str]) -> dict[str, Any]:
        (role,), name, description, (words,), (interfaces,), count = self._batch(
            self._message(ref, ACCESSIBLE, "GetRole"), self._property(ref, "Name"),
            self._property(ref, "Description"), self._message(ref, ACCESSIBLE, "GetState"),
            self._message(ref, ACCESSIBLE, "GetInterfaces"), self._property(ref, "ChildCount"),
        )
        if role not in self.role_names:
            (self.role_names[role],) = self._batch(self._message(ref, ACCESSIBLE, "GetRoleName"))[0]
        node: dict[str, Any] = {"role": self.role_names[role], "name": name[0][1]}
        if description[0][1]:
            node["description"] = description[0][1]
        bits = sum(word << (32 * index) for index, word in enumerate(words))
        node["states"] = [state for bit, state in self.states.items() if bits >> bit & 1]
        node["child_count"] = count[0][1]
        if "showing" not in node["states"] and node["role"] not in ("application", "desktop frame"):
            self.hidden.add(ref)
            return node
        calls = []
        if COMPONENT in interfaces:
            calls.append(self._message(ref, COMPONENT, "GetExtents", "u", (_SCREEN_COORDS,)))
        if TEXT in interfaces:
            calls.append(self._message(ref, TEXT, "GetText", "ii", (0, MAX_TEXT)))
        replies = self._batch(*calls)
        if COMPONENT in interfaces:
            x, y, w, h = replies.pop(0)[0]
            if x != _OFF_SCREEN and w >= 0 and h >= 0:
                node["extents"] = [x, y, w, h]
        if TEXT in interfaces:
            node["text"] = replies.pop(0)[0]
        return node


def capture(session_bus: str, walk: Walk, states: dict[int, str] = STATES) -> dict[str, Any]:
    """The whole desktop: the registry's root with one child per application; `states` the
    AtspiStateType bits kept, by name."""
    with open_dbus_connection(bus=a11y_bus_address(session_bus)) as connection:
        reader = AtspiReader(connection, states=states)
        return walk.run(REGISTRY_ROOT, reader.read, reader.children)
