"""compare_images, compare_audios and compare_videos on files built here, each asserting the
value WAA's own vlc.py gives for them: the expected figures were computed once with the
reference libraries (scikit-image's structural_similarity, librosa 0.11 load/mfcc/normalize
with scipy's cosine and fastdtw, OpenCV with imagehash's phash) on these very files."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
import soundfile
from PIL import Image, ImageDraw

from bench.suites.waa.errors import ReferenceCrash
from bench.suites.waa.metrics import METRICS


def encoded(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def test_images_score_scikit_images_ssim_after_waas_resize():
    rng = np.random.default_rng(1)
    first = Image.fromarray(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8))
    second = first.copy()
    ImageDraw.Draw(second).rectangle((20, 20, 80, 60), fill=(200, 10, 10))
    second = second.resize((200, 90))
    compare = METRICS["compare_images"]
    assert compare(encoded(first), encoded(second)) == pytest.approx(0.6364786043348214, abs=1e-12)
    assert compare(encoded(first), encoded(first)) == 1.0
    # WAA resizes both to min() of the (width, height) tuples: the narrower image's size, though it is taller
    rng = np.random.default_rng(7)
    narrow = Image.fromarray(rng.integers(0, 255, (60, 40), dtype=np.uint8))
    wide = Image.fromarray(rng.integers(0, 255, (30, 90), dtype=np.uint8))
    assert compare(encoded(narrow), encoded(wide)) == pytest.approx(0.009490601259620795, abs=1e-12)
    assert compare(None, encoded(first)) == 0.0


def test_images_waa_cannot_read_or_measure_name_the_fix():
    tiny = encoded(Image.new("L", (6, 40)))
    for result in (b"", b"not a picture", tiny):
        with pytest.raises(ReferenceCrash, match="unreadable-media"):
            METRICS["compare_images"](result, encoded(Image.new("L", (64, 64))))


def wav(samples: np.ndarray, rate: int, kind: str = "WAV") -> bytes:
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, rate, format=kind)
    return buffer.getvalue()


def test_audios_score_librosas_mfcc_alignment():
    rng = np.random.default_rng(1)
    t = np.arange(0, 2.0, 1 / 44100)
    tone = (0.3 * np.sin(2 * np.pi * 440 * t) + 0.1 * rng.standard_normal(len(t))).astype(np.float32)
    fading = (0.3 * np.sin(2 * np.pi * 660 * t) * np.exp(-t)).astype(np.float32)
    stereo = wav(np.stack([tone, tone * 0.5], 1), 44100)
    mp3 = wav(fading, 44100, "MP3")
    compare = METRICS["compare_audios"]
    assert compare(stereo, mp3) == pytest.approx(0.009781229784552687, rel=1e-6)
    assert compare(mp3, mp3) == 1.0
    assert compare(None, mp3) == 0.0
    for broken in (b"", b"ID3 but not audio"):
        with pytest.raises(ReferenceCrash, match="unreadable-media"):
            compare(broken, mp3)


def video(tmp_path, name: str, frames: int, jump_after: int | None = None) -> bytes:
    path = str(tmp_path / name)
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), 10, (64, 48))
    for i in range(frames):
        frame = np.zeros((48, 64, 3), np.uint8)
        cv2.circle(frame, (10 + i + (15 if jump_after is not None and i > jump_after else 0), 24), 8, (0, 255, 255), -1)
        frame[:, :i] = (i * 8) % 255
        writer.write(frame)
    writer.release()
    return (tmp_path / name).read_bytes()


def test_videos_compare_frame_hashes_and_lengths(tmp_path):
    gold = video(tmp_path, "gold.mp4", 30)
    compare = METRICS["compare_videos"]
    assert compare(gold, gold) == 1.0
    assert compare(video(tmp_path, "moved.mp4", 30, jump_after=15), gold) == 0.0  # 6 frames differ by 30+ bits
    assert compare(video(tmp_path, "late.mp4", 30, jump_after=25), gold) == 1.0  # 4 mismatches are tolerated
    assert compare(video(tmp_path, "short.mp4", 20), gold) == 0.0  # one ends first
    assert compare(gold, gold, max_frames_to_check=5) == 1.0
    assert compare(None, gold) == 0.0  # OpenCV opens nothing: no frames, and the gold has some
    assert compare(b"not a video", b"nor this") == 1.0  # both end at once, as WAA reads them
