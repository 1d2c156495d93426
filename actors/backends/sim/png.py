"""A tiny PNG writer, so simulated screenshots are real images that change with the screen.

Written here rather than through Pillow's encoder because a simulated VM
encodes a frame at every step: Pillow's encoder spends ~5 ms on a 1280x800
palette frame, while these frames are flat colour that zlib at level 1 packs
in ~1 ms at 4 bits a pixel, rows unfiltered.
"""

import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def encode_png(width: int, height: int, pixels: bytes, palette: bytes = b"", bits: int = 8,
               pad_to: int = 0) -> bytes:
    """`pixels` are `height` rows of 8-bit RGB, or, when a `palette` (RGB triples) is
    given, of `bits`-bit indices into it, each row starting on a byte; padded with a
    private ancillary chunk up to `pad_to` bytes so transports carry screenshot-sized
    payloads."""
    if palette and not 0 < len(palette) <= 3 << bits or not palette and bits != 8:
        raise ValueError(f"{len(palette) // 3} colours at {bits} bits a pixel: no such PNG")
    stride = (width * (1 if palette else 3) * bits + 7) // 8
    if len(pixels) != stride * height:
        raise ValueError(f"{width}x{height} pixels take {stride * height} bytes, got {len(pixels)}")
    rows = memoryview(pixels)
    scanlines = b"\x00" + b"\x00".join(rows[top:top + stride] for top in range(0, len(pixels), stride))
    colour_type = 3 if palette else 2
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, colour_type, 0, 0, 0))
    if palette:
        png += _chunk(b"PLTE", palette)
    png += _chunk(b"IDAT", zlib.compress(scanlines, 1))
    missing = pad_to - len(png) - len(_chunk(b"IEND", b"")) - 12
    if missing > 0:
        png += _chunk(b"trPd", bytes(missing))
    return png + _chunk(b"IEND", b"")


def solid_png(width: int, height: int, rgb: tuple[int, int, int], pad_to: int = 0) -> bytes:
    """A `width`x`height` image of one colour: one palette entry, one bit a pixel."""
    return encode_png(width, height, bytes((width + 7) // 8 * height), palette=bytes(rgb), bits=1, pad_to=pad_to)
