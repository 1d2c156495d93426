"""OSWorld's audio and video comparisons (metrics/vlc.py), on the files' bytes.

- `compare_audios`: both files loaded and their MFCCs aligned by FastDTW as
  librosa, scipy and fastdtw compute them (bench.formats.audio, which WAA's
  suite shares); the score is exp(-total distance / the path's length), so
  the same audio scores 1 and the score falls with the mean distance. No
  file (None, a getter that found none) scores 0. A file that does not load
  or has no samples is "bad": both bad score 1, one bad 0, as OSWorld's
  function decides before it measures. Files are decoded by libsndfile
  (WAV, FLAC, Ogg, MP3...), librosa's first choice; where librosa would fall
  back to audioread's FFmpeg (AAC, an MP4's sound), the file counts as bad here;
- `compare_videos`: WAA's function too (bench.formats.video): up to
  `max_frames_to_check` frame pairs' perceptual hashes, more than
  `threshold` mismatching pairs score 0, videos ending apart score 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bench.formats import video
from bench.formats.audio import UnreadableAudio, alignment, features, load_audio


def _samples(data: bytes) -> np.ndarray | None:
    """The file's samples; None for what OSWorld calls bad: not loadable, or empty."""
    try:
        samples = load_audio(data)
    except UnreadableAudio:
        return None
    return samples if samples.shape[0] else None


def compare_audios(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    first, second = _samples(result), _samples(expected)
    if first is None or second is None:
        return float(first is None and second is None)
    distance, steps = alignment(features(first), features(second))
    return math.exp(-distance / steps)


def compare_videos(result: bytes | None, expected: bytes | None, max_frames_to_check: int = 100,
                   threshold: int = 5, **options: Any) -> float:
    return video.compare_videos(result, expected, max_frames_to_check=max_frames_to_check, threshold=threshold)


MEDIA_METRICS = {"compare_audios": compare_audios, "compare_videos": compare_videos}
