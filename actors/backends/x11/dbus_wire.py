"""D-Bus's wire format for the method calls an AT-SPI walk makes and the replies it reads, fast.

A tree of a spreadsheet's visible cells is some 15,000 calls; jeepney's
general encoder and parser spend ~100-200 us of Python on each, most of the
walk's time. Here a call is packed with a few `struct` calls and a reply's
body is read by a reader compiled once per signature, in little-endian (the
byte order the calls announce; a reply may come in either, and a big-endian
one is read with the same readers in that order). jeepney still opens and
authenticates the connection; the stream is read here from then on.
"""

from __future__ import annotations

import socket
import struct
from functools import lru_cache
from typing import Any, Callable

METHOD_CALL, METHOD_RETURN, ERROR = 1, 2, 3
_FIXED = {"y": ("B", 1), "b": ("I", 4), "n": ("h", 2), "q": ("H", 2), "i": ("i", 4), "u": ("I", 4),
          "x": ("q", 8), "t": ("Q", 8), "d": ("d", 8), "h": ("I", 4)}
_ALIGNMENT = {**{code: size for code, (_, size) in _FIXED.items()}, "s": 4, "o": 4, "g": 1, "v": 1, "a": 4,
              "(": 8, "{": 8}
Reader = Callable[[bytes, int], tuple[Any, int]]


def _pad(position: int, alignment: int) -> int:
    return (-position) % alignment


def _string(code: int, value: str) -> bytes:
    """A header field (code, variant of a string-like type), which starts 8-aligned."""
    data = value.encode()
    if code == 8:  # SIGNATURE: a byte length
        return struct.pack("<B3sB", code, b"\x01g\x00", len(data)) + data + b"\x00"
    kind = b"\x01o\x00" if code == 1 else b"\x01s\x00"
    return struct.pack("<B3sI", code, kind, len(data)) + data + b"\x00"


def _body(signature: str, values: tuple) -> bytes:
    """The body of a call whose arguments are strings and 32-bit integers (all AT-SPI's calls need)."""
    out = bytearray()
    for code, value in zip(signature, values):
        if code in "so":
            data = value.encode()
            out += bytes(_pad(len(out), 4)) + struct.pack("<I", len(data)) + data + b"\x00"
        elif code in "iu":
            out += bytes(_pad(len(out), 4)) + struct.pack("<" + _FIXED[code][0], value)
        else:
            raise ValueError(f"dbus_wire encodes no {code!r} argument")
    return bytes(out)


def method_call(serial: int, destination: str, path: str, interface: str, member: str,
                signature: str | None = None, body: tuple = ()) -> bytes:
    """A method call's bytes, as jeepney's `new_method_call(...).serialise(serial)` gives them."""
    fields = [(1, path), (2, interface), (3, member), (6, destination)] + ([(8, signature)] if signature else [])
    header = bytearray()
    for code, value in fields:
        header += bytes(_pad(len(header), 8)) + _string(code, value)
    payload = _body(signature or "", body)
    start = struct.pack("<cBBBIII", b"l", METHOD_CALL, 0, 1, len(payload), serial, len(header))
    return start + header + bytes(_pad(16 + len(header), 8)) + payload


def _split(signature: str) -> list[str]:
    """The complete types of a signature, in order."""
    types, position = [], 0
    while position < len(signature):
        end = position
        depth = 0
        while True:
            code = signature[end]
            if code in "({":
                depth += 1
            elif code in ")}":
                depth -= 1
            end += 1
            if depth == 0 and code != "a":
                break
        types.append(signature[position:end])
        position = end
    return types


@lru_cache(maxsize=None)
def reader(signature: str, order: str = "<") -> Reader:
    """A function reading one value of the complete type `signature` at a position of a buffer."""
    code = signature[0]
    if code in _FIXED:
        unpack, size = struct.Struct(order + _FIXED[code][0]).unpack_from, _FIXED[code][1]
        if code == "b":
            return lambda data, at: (bool(unpack(data, at + _pad(at, 4))[0]), at + _pad(at, 4) + 4)
        return lambda data, at: (unpack(data, at + _pad(at, size))[0], at + _pad(at, size) + size)
    if code in "so":
        length = struct.Struct(order + "I").unpack_from

        def text(data: bytes, at: int) -> tuple[str, int]:
            at += _pad(at, 4)
            (size,) = length(data, at)
            return data[at + 4:at + 4 + size].decode("utf-8", "replace"), at + 5 + size
        return text
    if code == "g":
        return lambda data, at: (data[at + 1:at + 1 + data[at]].decode(), at + 2 + data[at])
    if code == "v":
        def variant(data: bytes, at: int) -> tuple[tuple[str, Any], int]:
            kind = data[at + 1:at + 1 + data[at]].decode()
            value, at = reader(kind, order)(data, at + 2 + data[at])
            return (kind, value), at
        return variant
    if code == "(":
        parts = [reader(part, order) for part in _split(signature[1:-1])]

        def structure(data: bytes, at: int) -> tuple[tuple, int]:
            at += _pad(at, 8)
            values = []
            for part in parts:
                value, at = part(data, at)
                values.append(value)
            return tuple(values), at
        return structure
    if code == "a":
        element = signature[1:]
        length = struct.Struct(order + "I").unpack_from
        alignment = _ALIGNMENT[element[0]]
        if element[0] == "{":
            key, value = (reader(part, order) for part in _split(element[1:-1]))

            def dictionary(data: bytes, at: int) -> tuple[dict, int]:
                at += _pad(at, 4)
                (size,) = length(data, at)
                at += 4 + _pad(at + 4, 8)
                end, out = at + size, {}
                while at < end:
                    at += _pad(at, 8)
                    name, at = key(data, at)
                    out[name], at = value(data, at)
                return out, end
            return dictionary
        item = reader(element, order)

        def array(data: bytes, at: int) -> tuple[list, int]:
            at += _pad(at, 4)
            (size,) = length(data, at)
            at += 4 + _pad(at + 4, alignment)
            end, out = at + size, []
            while at < end:
                value, at = item(data, at)
                out.append(value)
            return out, end
        return array
    raise ValueError(f"dbus_wire reads no {signature!r}")


def _header_fields(data: bytes, order: str) -> dict[int, Any]:
    """The header's fields (code -> value) of the message at the start of `data`."""
    (size,) = struct.unpack_from(order + "I", data, 12)
    fields, at, end = {}, 16, 16 + size
    while at < end:
        at += _pad(at, 8)
        code = data[at]
        (kind, value), at = reader("v", order)(data, at + 1)
        fields[code] = value
    return fields


class Replies:
    """Reads replies off a connection's socket: `receive()` answers the next one (message type, the serial
    it replies to, its body values); other messages (signals) are skipped."""

    def __init__(self, sock: socket.socket, buffered: bytes = b"") -> None:
        self.sock = sock
        self.buffer = bytearray(buffered)

    def _message_size(self) -> int | None:
        if len(self.buffer) < 16:
            return None
        order = "<" if self.buffer[0:1] == b"l" else ">"
        body, fields = struct.unpack_from(order + "I4xI", self.buffer, 4)
        return 16 + fields + _pad(16 + fields, 8) + body

    def receive(self) -> tuple[int, int, tuple]:
        """The next reply or error (blocking under the socket's own timeout)."""
        while True:
            size = self._message_size()
            while size is None or len(self.buffer) < size:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("the accessibility bus closed the connection")
                self.buffer += chunk
                size = self._message_size()
            data, self.buffer = bytes(self.buffer[:size]), self.buffer[size:]
            kind = data[1]
            if kind not in (METHOD_RETURN, ERROR):
                continue
            order = "<" if data[0:1] == b"l" else ">"
            fields = _header_fields(data, order)
            (header,) = struct.unpack_from(order + "I", data, 12)
            at = 16 + header + _pad(16 + header, 8)
            values: list[Any] = []
            for part in _split(fields.get(8, "")):
                value, at = reader(part, order)(data, at)
                values.append(value)
            return kind, fields.get(5, -1), tuple(values)
