"""Image, audio and video comparisons of WAA's vlc.py, on the files' bytes.

WAA reads these with scikit-image, librosa and imagehash; troupe computes the
same quantities on numpy (and decodes with the libraries underneath those:
Pillow, libsndfile, soxr, OpenCV's FFmpeg), so that a verdict needs neither
scipy nor numba:

- `compare_images`: the mean SSIM (scikit-image's defaults, bench.formats.ssim,
  shared with OSWorld's compare_images) of the two images in grey, both
  resized with Lanczos to the smaller size, where "smaller" is WAA's
  comparison of (width, height) tuples, so the narrower image wins even if
  it is taller. The score is that similarity, not a pass mark: identical
  pictures score exactly 1, anything else below. No result file scores 0;
- `compare_audios`: the two files' MFCCs aligned by FastDTW, as both
  references compute them (bench.formats.audio); the score is 1/(1 + total
  distance), so only the same audio scores 1;
- `compare_videos`: OSWorld's function too (bench.formats.video): frame
  pairs' perceptual hashes, a missing result scoring 0.

Where WAA's function raises (an image or audio file its library cannot
decode, an image under 7 pixels on a side, an empty file where WAA gets a
path), `ReferenceCrash` names the `unreadable-media` fix, which scores 0; a
gold file that could not be read raises too (`errors.gold_required`).
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, UnidentifiedImageError

from bench.formats import video
from bench.formats.audio import UnreadableAudio, alignment, features, load_audio
from bench.formats.ssim import SsimUndefined, grey_ssim_at_smaller_size
from bench.suites.waa.errors import ReferenceCrash, gold_required


def _unreadable(metric: str, what: str) -> ReferenceCrash:
    return ReferenceCrash(f"{metric}: {what}", fix="unreadable-media", fixed=0.0)


# --- images -------------------------------------------------------------------------------------------------------

def _grey(data: bytes, metric: str) -> Image.Image:
    try:
        return Image.open(io.BytesIO(data)).convert("L")
    except (UnidentifiedImageError, OSError) as exc:
        raise _unreadable(metric, f"Pillow cannot read the image ({exc})") from None


def compare_images(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        return grey_ssim_at_smaller_size(_grey(result, "compare_images"), _grey(expected, "compare_images"))
    except SsimUndefined as exc:
        raise _unreadable("compare_images", str(exc)) from None


# --- audio and video ------------------------------------------------------------------------------------------

def compare_audios(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        first, second = (features(load_audio(data)) for data in (result, expected))
    except UnreadableAudio as exc:
        raise _unreadable("compare_audios", str(exc)) from None
    distance, _ = alignment(first, second)
    return 1.0 / (1.0 + distance)


def compare_videos(result: bytes | None, expected: bytes | None, *, max_frames_to_check: int = 100,
                   threshold: int = 5, **options: Any) -> float:
    return video.compare_videos(result, expected, max_frames_to_check=max_frames_to_check, threshold=threshold)


MEDIA_METRICS = {metric.__name__: gold_required(metric)
                 for metric in (compare_images, compare_audios, compare_videos)}
