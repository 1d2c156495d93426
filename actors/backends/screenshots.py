"""Screenshots with one reused mss instance, encoded for the wire, and settling.

mss opens its display connection once; grabbing is a shared-memory copy
(a few ms), encoding is the expensive part, so PNG uses zlib level 1 (the
size barely shrinks past it, the time grows fast) and JPEG is there for
callers who can live with loss. Both run in a worker thread so the event
loop keeps serving while a 1080p frame is compressed; one thread at a time,
since an mss instance is not meant to be shared concurrently.

`settle` replaces the fixed sleep after an action: it grabs until two
frames in a row are identical (or a bound passes), comparing raw pixels.
"""

from __future__ import annotations

import io
import time
import zlib
from dataclasses import dataclass
from typing import Literal

import anyio
import mss
from PIL import Image

from protocols import Viewport

Format = Literal["png", "jpeg"]


@dataclass(frozen=True)
class Encoding:
    format: Format = "png"
    png_level: int = 1
    jpeg_quality: int = 80


@dataclass
class Frame:
    raw: bytes
    width: int
    height: int
    grab_seconds: float


class Screen:
    def __init__(self, display: str | None = None, encoding: Encoding = Encoding()) -> None:
        self.display = display
        self.encoding = encoding
        self._mss: mss.base.MSSBase | None = None
        self._limiter = anyio.CapacityLimiter(1)

    def grab_sync(self) -> Frame:
        if self._mss is None:
            factory = getattr(mss, "MSS", None) or mss.mss  # mss 10 renamed the class
            self._mss = factory(display=self.display) if self.display else factory()
        began = time.perf_counter()
        shot = self._mss.grab(self._mss.monitors[0])
        return Frame(bytes(shot.raw), shot.width, shot.height, time.perf_counter() - began)

    def encode_sync(self, frame: Frame, encoding: Encoding | None = None) -> bytes:
        encoding = encoding or self.encoding
        image = Image.frombuffer("RGB", (frame.width, frame.height), frame.raw, "raw", "BGRX", 0, 1)
        out = io.BytesIO()
        if encoding.format == "jpeg":
            image.save(out, "JPEG", quality=encoding.jpeg_quality)
        else:
            image.save(out, "PNG", compress_level=encoding.png_level)
        return out.getvalue()

    async def screenshot(self) -> tuple[bytes, Viewport]:
        def capture() -> tuple[bytes, Viewport]:
            frame = self.grab_sync()
            return self.encode_sync(frame), Viewport(frame.width, frame.height)

        return await anyio.to_thread.run_sync(capture, limiter=self._limiter)

    async def settle(self, *, interval: float = 0.03, stable_frames: int = 2, bound: float = 2.0) -> float:
        """Wait until the screen stops changing; return how long that took."""
        began = anyio.current_time()
        last, same = None, 0
        while anyio.current_time() - began < bound:
            frame = await anyio.to_thread.run_sync(self.grab_sync, limiter=self._limiter)
            digest = zlib.crc32(frame.raw)
            same = same + 1 if digest == last else 0
            if same >= stable_frames - 1 and last is not None:
                break
            last = digest
            await anyio.sleep(interval)
        return anyio.current_time() - began

    def close(self) -> None:
        if self._mss is not None:
            self._mss.close()
            self._mss = None
