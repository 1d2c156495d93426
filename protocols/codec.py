"""Bytes on the wire and in files.

msgpack on sockets (screenshots travel as raw bytes), JSON for files and the
browser viewer. Every message crossing a socket is wrapped in a versioned
`Envelope` whose body stays raw until the envelope itself checked out, so a
peer that speaks another version or kind is refused with a reason rather than
a decoding crash deep in a handler. A failed ask comes back as an "error"
envelope carrying a `Failure`; `runtime.errors.to_failure`/`from_failure` are
the one table between those and exceptions (the classes live in that layer).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import msgspec

from protocols.errors import ProtocolError
from protocols.messages import Message

__all__ = ["KINDS", "MESSAGE_TYPES", "WIRE_VERSION", "Envelope", "Kind", "decode", "encode", "to_json"]

WIRE_VERSION = 1

MESSAGE_TYPES: tuple[type, ...] = get_args(Message)
"""Every message class: what may cross a socket, checked before anything is sent."""

Kind = Literal["ask", "tell", "reply", "error"]
KINDS = frozenset(get_args(Kind))


class Envelope(msgspec.Struct, array_like=True):
    """`id` pairs a reply with its ask (0 for tells); `to` names the actor."""

    v: int
    kind: str
    id: int
    to: str
    body: msgspec.Raw


_envelope_decoder = msgspec.msgpack.Decoder(Envelope)
_message_decoder = msgspec.msgpack.Decoder(Message)
_encoder = msgspec.msgpack.Encoder()


def encode(kind: Kind, message: Message, *, id: int = 0, to: str = "") -> bytes:
    body = msgspec.Raw(_encoder.encode(message))
    return _encoder.encode(Envelope(v=WIRE_VERSION, kind=kind, id=id, to=to, body=body))


def decode(data: bytes) -> tuple[Envelope, Message]:
    """Decode an envelope and its body, or raise ProtocolError naming the fault."""
    try:
        envelope = _envelope_decoder.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # msgspec lets bad UTF-8 in a str through as the latter
        raise ProtocolError(f"malformed envelope: {exc}") from None
    except RecursionError:
        raise ProtocolError("malformed envelope: nested too deeply") from None
    if envelope.v != WIRE_VERSION:
        raise ProtocolError(f"unsupported wire version {envelope.v} (this peer speaks {WIRE_VERSION})")
    if envelope.kind not in KINDS:
        raise ProtocolError(f"unknown envelope kind {envelope.kind!r} (expected one of {sorted(KINDS)})")
    try:
        message = _message_decoder.decode(envelope.body)
    except msgspec.ValidationError as exc:
        raise ProtocolError(f"invalid message: {exc}") from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed message body: {exc}") from None
    except RecursionError:  # msgspec's own depth guard: a hostile peer's bytes, not a bug here
        raise ProtocolError("malformed message body: nested too deeply") from None
    return envelope, message


_json_encoder = msgspec.json.Encoder()


def to_json(value: Any) -> bytes:
    return _json_encoder.encode(value)
