"""dbus_wire against jeepney: a call's bytes are jeepney's; a reply jeepney writes (either byte order, every
signature the AT-SPI reader meets, an error, a signal in between, split across reads) reads back the same."""

from __future__ import annotations

import socket

import pytest
from jeepney import DBusAddress, new_error, new_method_call, new_method_return, new_signal
from jeepney.low_level import Endianness

from actors.backends.x11 import dbus_wire

ADDRESS = DBusAddress("/org/a11y/atspi/accessible/7", bus_name=":1.42", interface="org.a11y.atspi.Accessible")
REPLIES = [
    ("u", (61,)), ("au", ([1 << 25 | 1 << 30, 3],)), ("as", (["org.a11y.atspi.Accessible", "é"],)),
    ("(iiii)", ((-5, 10, 300, -2**31),)), ("s", ("text \u20ac\ufffc",)), ("a(so)", ([(":1.2", "/a/1"), (":1.2", "/b")],)),
    ("(so)", ((":1.2", "/org/a11y/atspi/accessible/99"),)), ("a(sss)", ([("click", "Clicks", "<Alt>o")],)),
    ("a{ss}", ({"toolkit": "gtk", "Formula": "B3*2"},)), ("v", (("i", 7),)),
    ("a{sv}", ({"Name": ("s", "OK"), "ChildCount": ("i", 2), "Parent": ("(so)", (":1.1", "/root")),
                "Attributes": ("a{ss}", {}), "CurrentValue": ("d", 4.5), "Empty": ("as", [])},)),
    ("", ()), ("ybnqxtd", (1, True, -2, 3, -2**40, 2**60, 0.25)),
]


@pytest.mark.parametrize("signature, body", [(None, ()), ("i", (3,)), ("ii", (0, -1)), ("u", (0,)),
                                             ("s", ("org.a11y.atspi.Value",)), ("ss", ("x", "Name"))])
def test_a_call_is_the_bytes_jeepney_writes(signature, body):
    for serial in (1, 77, 2**32 - 1):
        expected = new_method_call(ADDRESS, "GetThing", signature, body).serialise(serial=serial)
        assert dbus_wire.method_call(serial, ":1.42", ADDRESS.object_path, ADDRESS.interface, "GetThing",
                                     signature, body) == expected


@pytest.mark.parametrize("order", [Endianness.little, Endianness.big])
def test_replies_read_back_as_jeepney_wrote_them(order):
    call = new_method_call(ADDRESS, "Get")
    call.header.serial = 5
    messages = []
    for index, (signature, body) in enumerate(REPLIES):
        reply = new_method_return(call, signature or None, body)
        reply.header.fields[5] = 100 + index
        reply.header.endianness = order
        messages.append(reply.serialise(serial=200 + index))
    messages.insert(3, new_signal(ADDRESS, "NameAcquired", "s", (":1.9",)).serialise(serial=9))
    failed = new_error(call, "org.freedesktop.DBus.Error.UnknownMethod", "s", ("no such method",))
    messages.append(failed.serialise(serial=300))
    ours, theirs = socket.socketpair()
    with ours, theirs:
        stream = b"".join(messages)
        replies = dbus_wire.Replies(ours, stream[:7])
        theirs.sendall(stream[7:])
        for index, (signature, body) in enumerate(REPLIES):
            kind, serial, values = replies.receive()
            assert (kind, serial) == (dbus_wire.METHOD_RETURN, 100 + index)
            assert values == tuple(body) or signature == "ybnqxtd" and list(values) == list(body), signature
        assert replies.receive() == (dbus_wire.ERROR, 5, ("no such method",))


def test_a_closed_connection_is_an_error_not_a_hang():
    ours, theirs = socket.socketpair()
    theirs.close()
    with ours, pytest.raises(ConnectionError):
        dbus_wire.Replies(ours).receive()
