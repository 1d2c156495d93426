"""Media files the tests build for the audio, video and image comparisons of WAA and OSWorld: a still
with a disc, a fading tone, and a short video of the disc moving."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import cv2
import numpy as np
import soundfile
from PIL import Image, ImageDraw


def picture(size: tuple[int, int] = (96, 64), *, shift: int = 0, mode: str = "RGB", format: str = "PNG") -> bytes:
    """A frame like a video still: a gradient with a disc, drawn `shift` pixels to the right."""
    pixels = np.linspace(0, 255, size[0], dtype=np.uint8)[np.newaxis, :, np.newaxis].repeat(size[1], 0).repeat(3, 2)
    image = Image.fromarray(pixels)
    ImageDraw.Draw(image).ellipse((20 + shift, 10, 50 + shift, 40), fill=(200, 30, 30))
    out = io.BytesIO()
    image.convert(mode).save(out, format)
    return out.getvalue()


def tone(seconds: float = 0.5, rate: int = 22050, *, pitch: float = 440.0, channels: int = 1,
         format: str = "WAV") -> bytes:
    """A sine of `pitch` fading to 30 %, in `format` (a libsndfile format name)."""
    t = np.arange(int(seconds * rate)) / rate
    wave = 0.4 * np.sin(2 * np.pi * pitch * t) * np.linspace(1.0, 0.3, t.size)
    samples = np.stack([wave] * channels, axis=1) if channels > 1 else wave
    out = io.BytesIO()
    soundfile.write(out, samples.astype(np.float32), rate, format=format)
    return out.getvalue()


def video(frames: int = 8, *, shift: int = 0, suffix: str = ".mp4", codec: str = "mp4v",
          size: tuple[int, int] = (96, 64), fps: int = 10) -> bytes:
    """`frames` frames of `picture`'s disc moving 4 pixels a frame, as OpenCV's VideoWriter encodes them."""
    with tempfile.TemporaryDirectory() as scratch:
        path = str(Path(scratch) / f"v{suffix}")
        writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*codec), fps, size)
        for n in range(frames):
            frame = np.asarray(Image.open(io.BytesIO(picture(size, shift=(n * 4 + shift) % 40))).convert("RGB"))
            writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
        writer.release()
        return Path(path).read_bytes()
