"""Cases for compare_images, compare_audios and compare_videos: PNG and JPEG images in colour, grey
and with alpha, resized and cropped, and too small for SSIM's window; WAV and MP3 audio, mono and
stereo at other rates; short MP4 and AVI videos; and files that are not media at all."""

from __future__ import annotations

import io
from pathlib import Path
import tempfile

import cv2
import numpy as np
import soundfile
from PIL import Image, ImageDraw

from tests.suites.waa.corpus import Case, File


def picture(size: tuple[int, int] = (96, 64), *, shift: int = 0, mode: str = "RGB", format: str = "PNG") -> bytes:
    """A frame like a video still: a gradient with a disc, drawn `shift` pixels to the right."""
    image = Image.new("RGB", size)
    pixels = np.linspace(0, 255, size[0], dtype=np.uint8)[np.newaxis, :, np.newaxis].repeat(size[1], 0).repeat(3, 2)
    image = Image.fromarray(pixels)
    ImageDraw.Draw(image).ellipse((20 + shift, 10, 50 + shift, 40), fill=(200, 30, 30))
    out = io.BytesIO()
    image.convert(mode).save(out, format)
    return out.getvalue()


def _images() -> list[Case]:
    gold = picture()
    files = {"same": picture(), "jpeg": picture(format="JPEG"), "grey": picture(mode="L"),
             "alpha": picture(mode="RGBA"), "shifted": picture(shift=10), "larger": picture((192, 128)),
             "narrower-taller": picture((80, 120)), "tiny": picture((5, 5)), "not-an-image": b"\x89PNG broken",
             "missing": None}
    cases = [Case("compare_images", f"image-{name}", None if data is None else File(f"image-{name}/r.png", data),
                  File(f"image-{name}/g.png", gold)) for name, data in files.items()]
    cases.append(Case("compare_images", "image-gold-missing", File("image-gold-missing/r.png", gold), None))
    return cases


def tone(seconds: float = 0.5, rate: int = 22050, *, pitch: float = 440.0, channels: int = 1,
         format: str = "WAV") -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    wave = 0.4 * np.sin(2 * np.pi * pitch * t) * np.linspace(1.0, 0.3, t.size)
    samples = np.stack([wave] * channels, axis=1) if channels > 1 else wave
    out = io.BytesIO()
    soundfile.write(out, samples.astype(np.float32), rate, format=format)
    return out.getvalue()


def _audios() -> list[Case]:
    gold = tone()
    files = {"same": tone(), "stereo": tone(channels=2), "44k": tone(rate=44100), "other-pitch": tone(pitch=660),
             "longer": tone(0.8), "mp3": tone(format="MP3"), "flac": tone(format="FLAC"),
             "not-audio": b"RIFF not a wave", "missing": None}
    cases = [Case("compare_audios", f"audio-{name}", None if data is None else File(f"audio-{name}/r.wav", data),
                  File(f"audio-{name}/g.wav", gold)) for name, data in files.items()]
    cases.append(Case("compare_audios", "audio-gold-missing", File("audio-gold-missing/r.wav", gold), None))
    return cases


def video(frames: int = 8, *, shift: int = 0, suffix: str = ".mp4", codec: str = "mp4v") -> bytes:
    with tempfile.TemporaryDirectory() as scratch:
        path = str(Path(scratch) / f"v{suffix}")
        writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*codec), 10, (96, 64))
        for n in range(frames):
            frame = np.asarray(Image.open(io.BytesIO(picture(shift=(n * 4 + shift) % 40))).convert("RGB"))
            writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
        writer.release()
        return Path(path).read_bytes()


def _videos() -> list[Case]:
    gold = video()
    files = {"same": video(), "shorter": video(6), "shifted": video(shift=20), "avi": video(suffix=".avi",
                                                                                             codec="MJPG"),
             "not-video": b"\x00\x00\x00 ftyp broken", "missing": None}
    cases = [Case("compare_videos", f"video-{name}", None if data is None else File(f"video-{name}/r.mp4", data),
                  File(f"video-{name}/g.mp4", gold)) for name, data in files.items()]
    cases += [Case("compare_videos", "video-gold-missing", File("video-gold-missing/r.mp4", gold), None),
              Case("compare_videos", "video-threshold-0", File("video-t0/r.mp4", video(shift=1)),
                   File("video-t0/g.mp4", gold), {"threshold": 0, "max_frames_to_check": 4})]
    return cases


def cases() -> list[Case]:
    return _images() + _audios() + _videos()
