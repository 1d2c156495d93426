"""A tiny PNG writer, so simulated screenshots are real images that change with the screen."""

import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def solid_png(width: int, height: int, rgb: tuple[int, int, int], pad_to: int = 0) -> bytes:
    """A `width`x`height` image of one colour; padded with a private ancillary
    chunk up to `pad_to` bytes so transports carry screenshot-sized payloads."""
    row = b"\x00" + bytes(rgb) * width
    image = _chunk(b"IDAT", zlib.compress(row * height, 1))
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png = b"\x89PNG\r\n\x1a\n" + header + image
    missing = pad_to - len(png) - len(_chunk(b"IEND", b"")) - 12
    if missing > 0:
        png += _chunk(b"trPd", bytes(missing))
    return png + _chunk(b"IEND", b"")
