"""Videos as WAA's and OSWorld's `compare_videos` compare them (the same function in both references).

Up to `max_frames_to_check` (100) frame pairs as OpenCV decodes them; a pair
whose 64-bit perceptual hashes (imagehash's phash: 32x32 grey Lanczos
thumbnail, DCT, the 8x8 lowest frequencies above their median, computed
here on numpy) differ in more than `threshold` (5) bits is a mismatch, and
more than `threshold` mismatches score 0. When either video ends first the
score is whether both ended together; a video OpenCV cannot open has no
frames, so a missing or unreadable result scores 0 against a real video
(and two unreadable videos 1).
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

__all__ = ["compare_videos", "phash"]

HASH_SIZE, HASH_IMAGE = 8, 32


@functools.cache
def _dct_unscaled(size: int) -> np.ndarray:
    """scipy.fftpack.dct's unnormalised DCT-II, first HASH_SIZE rows."""
    k, n = np.arange(HASH_SIZE)[:, np.newaxis], np.arange(size)[np.newaxis, :]
    return 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * size))


def phash(image: Image.Image) -> np.ndarray:
    """imagehash.phash's 64 bits."""
    pixels = np.asarray(image.convert("L").resize((HASH_IMAGE, HASH_IMAGE), Image.Resampling.LANCZOS),
                        dtype=np.float64)
    basis = _dct_unscaled(HASH_IMAGE)
    low = basis @ pixels @ basis.T
    return low > np.median(low)


def _frame_hashes(path: str | None):
    """One hash per frame OpenCV decodes; nothing for a file it cannot open."""
    capture = cv2.VideoCapture(path) if path else None
    try:
        while capture is not None:
            ok, frame = capture.read()
            if not ok:
                return
            yield phash(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)))
    finally:
        if capture is not None:
            capture.release()


def _same_frames(mine, gold, max_frames: int, threshold: int) -> float:
    mismatches = 0
    for _ in range(max_frames):
        first, second = next(mine, None), next(gold, None)
        if first is None or second is None:
            return float((first is None) == (second is None))
        if np.count_nonzero(first != second) > threshold:
            mismatches += 1
            if mismatches > threshold:
                return 0.0
    return 1.0


def compare_videos(result: bytes | None, expected: bytes | None, *, max_frames_to_check: int = 100,
                   threshold: int = 5) -> float:
    """The score both references give the two videos' bytes (None: no file)."""
    with tempfile.TemporaryDirectory() as scratch:
        paths = []
        for name, data in (("result", result), ("expected", expected)):
            if data is None:
                paths.append(None)
                continue
            (Path(scratch) / name).write_bytes(data)
            paths.append(str(Path(scratch) / name))
        mine, gold = _frame_hashes(paths[0]), _frame_hashes(paths[1])
        try:
            return _same_frames(mine, gold, max_frames_to_check, threshold)
        finally:
            mine.close()
            gold.close()
