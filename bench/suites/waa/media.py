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
- `compare_audios`: librosa.load (mono, resampled to 22050 Hz with soxr's
  HQ), 20 MFCCs of a 128-band Slaney mel power spectrogram in dB (2048-point
  Hann frames, hop 512), each coefficient scaled by its largest magnitude,
  aligned by FastDTW under the cosine distance; the score is 1/(1 + total
  distance), so only the same audio scores 1;
- `compare_videos`: up to `max_frames_to_check` (100) frame pairs as OpenCV
  decodes them; a pair whose 64-bit perceptual hashes (imagehash's phash:
  32x32 grey Lanczos thumbnail, DCT, the 8x8 lowest frequencies above their
  median) differ in more than `threshold` (5) bits is a mismatch, and more
  than `threshold` mismatches score 0. When either video ends first the
  score is whether both ended together; a video OpenCV cannot open has no
  frames, so a missing result scores 0 (and two unreadable videos 1).

Where WAA's function raises (an image or audio file its library cannot
decode, an image under 7 pixels on a side, an empty file where WAA gets a
path), `ReferenceCrash` names the `unreadable-media` fix, which scores 0; a
gold file that could not be read raises too (`errors.gold_required`).
"""

from __future__ import annotations

import functools
import io
import math
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import soundfile
import soxr
from fastdtw import fastdtw
from PIL import Image, UnidentifiedImageError

from bench.formats.ssim import SsimUndefined, grey_ssim_at_smaller_size
from bench.suites.waa.errors import ReferenceCrash, gold_required

SAMPLE_RATE = 22050
N_FFT, HOP, N_MELS, N_MFCC = 2048, 512, 128, 20
TOP_DB, AMIN = 80.0, 1e-10

HASH_SIZE, HASH_IMAGE = 8, 32


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


# --- audio --------------------------------------------------------------------------------------------------------

def load_audio(data: bytes) -> np.ndarray:
    """librosa.load's defaults: float32 samples, mono by the channels' mean, resampled to 22050 Hz."""
    try:
        samples, rate = soundfile.read(io.BytesIO(data), dtype="float32", always_2d=False)
    except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError) as exc:
        raise _unreadable("compare_audios", f"libsndfile cannot decode the audio ({exc})") from None
    samples = samples.T
    if samples.ndim > 1:
        samples = np.mean(samples, axis=tuple(range(samples.ndim - 1)))
    if rate == SAMPLE_RATE:
        return samples
    wanted = int(np.ceil(samples.shape[-1] * SAMPLE_RATE / rate))
    resampled = soxr.resample(samples, rate, SAMPLE_RATE, quality="soxr_hq")
    fitted = np.zeros(wanted, dtype=resampled.dtype)
    fitted[:min(wanted, len(resampled))] = resampled[:wanted]
    return np.asarray(fitted, dtype=samples.dtype)


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz, logarithmic above."""
    step, knee = 200.0 / 3, 1000.0
    mels = hz / step
    log_step = math.log(6.4) / 27.0
    above = hz >= knee
    mels[above] = knee / step + np.log(hz[above] / knee) / log_step
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    step, knee = 200.0 / 3, 1000.0
    hz = step * mels
    log_step = math.log(6.4) / 27.0
    above = mels >= knee / step
    hz[above] = knee * np.exp(log_step * (mels[above] - knee / step))
    return hz


@functools.cache
def mel_filters() -> np.ndarray:
    """librosa.filters.mel(sr=22050, n_fft=2048): 128 triangular bands, Slaney-normalised, float32."""
    frequencies = np.fft.rfftfreq(N_FFT, 1.0 / SAMPLE_RATE)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(np.array([0.0]))[0], _hz_to_mel(np.array([SAMPLE_RATE / 2]))[0],
                                   N_MELS + 2))
    widths = np.diff(edges)
    ramps = np.subtract.outer(edges, frequencies)
    weights = np.zeros((N_MELS, len(frequencies)), dtype=np.float32)
    for band in range(N_MELS):
        weights[band] = np.maximum(0, np.minimum(-ramps[band] / widths[band], ramps[band + 2] / widths[band + 1]))
    weights *= (2.0 / (edges[2:N_MELS + 2] - edges[:N_MELS]))[:, np.newaxis]
    return weights


@functools.cache
def _dct_ortho(size: int) -> np.ndarray:
    """The orthonormal DCT-II matrix (scipy.fft.dct(type=2, norm="ortho")), first N_MFCC rows."""
    k, n = np.arange(N_MFCC)[:, np.newaxis], np.arange(size)[np.newaxis, :]
    matrix = 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * size))
    matrix[0] *= math.sqrt(1 / (4 * size))
    matrix[1:] *= math.sqrt(1 / (2 * size))
    return matrix


def mfcc(samples: np.ndarray) -> np.ndarray:
    """librosa.feature.mfcc's defaults, (20, frames)."""
    padded = np.pad(samples, N_FFT // 2)
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)
    spectrum = np.fft.rfft(frames * window, axis=-1).astype(np.complex64)
    power = (np.abs(spectrum) ** 2).T
    mel = mel_filters() @ power
    db = 10.0 * np.log10(np.maximum(np.float32(AMIN), mel))
    db = np.maximum(db, db.max() - np.float32(TOP_DB))
    return (_dct_ortho(N_MELS) @ db.astype(np.float64)).astype(np.float32)


def _scaled_rows(features: np.ndarray) -> np.ndarray:
    """librosa.util.normalize(axis=1): each row over its largest magnitude (left alone when that is ~0)."""
    largest = np.abs(features).astype(np.float64).max(axis=1, keepdims=True)
    largest[largest < np.finfo(features.dtype).tiny] = 1.0
    return (features / largest).astype(features.dtype)


def cosine_distance(u: np.ndarray, v: np.ndarray) -> float:
    """scipy.spatial.distance.cosine, clipped to [0, 2] against rounding."""
    return float(np.clip(1.0 - np.dot(u, v) / math.sqrt(np.dot(u, u) * np.dot(v, v)), 0.0, 2.0))


def compare_audios(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    first, second = (_scaled_rows(mfcc(load_audio(data))) for data in (result, expected))
    distance, _ = fastdtw(first.T, second.T, dist=cosine_distance)
    return 1.0 / (1.0 + distance)


# --- video --------------------------------------------------------------------------------------------------------

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


def compare_videos(result: bytes | None, expected: bytes | None, *, max_frames_to_check: int = 100,
                   threshold: int = 5, **options: Any) -> float:
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


MEDIA_METRICS = {metric.__name__: gold_required(metric)
                 for metric in (compare_images, compare_audios, compare_videos)}
