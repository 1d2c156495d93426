"""Audio as librosa hears it, on numpy: what WAA's and OSWorld's `compare_audios` compute alike.

Both references load each file with librosa.load's defaults (mono, 22050 Hz
by soxr's HQ resampler), take 20 MFCCs of a 128-band Slaney mel power
spectrogram in dB (2048-point Hann frames, hop 512), scale each coefficient
by its largest magnitude (librosa.util.normalize(axis=1)) and align the two
sequences by FastDTW under scipy's cosine distance; they differ only in how
they turn that alignment into a score and in what they do with a file that
does not load. Here the same quantities are computed on numpy with the
libraries underneath librosa (libsndfile, soxr), so a verdict needs neither
scipy nor numba: `load_audio` (raising `UnreadableAudio` where libsndfile
cannot decode), `features` (the scaled MFCCs) and `alignment` (FastDTW's
total distance and path length).
"""

from __future__ import annotations

import functools
import io
import math

import numpy as np
import soundfile
import soxr
from fastdtw import fastdtw

from protocols import TroupeError

__all__ = ["SAMPLE_RATE", "UnreadableAudio", "alignment", "features", "load_audio"]

SAMPLE_RATE = 22050
N_FFT, HOP, N_MELS, N_MFCC = 2048, 512, 128, 20
TOP_DB, AMIN = 80.0, 1e-10


class UnreadableAudio(TroupeError, ValueError):
    """Bytes libsndfile cannot decode as audio (librosa.load raises on them too)."""


def load_audio(data: bytes) -> np.ndarray:
    """librosa.load's defaults: float32 samples, mono by the channels' mean, resampled to 22050 Hz."""
    try:
        samples, rate = soundfile.read(io.BytesIO(data), dtype="float32", always_2d=False)
    except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError) as exc:
        raise UnreadableAudio(f"libsndfile cannot decode the audio ({exc})") from None
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


def features(samples: np.ndarray) -> np.ndarray:
    """The MFCCs both references align, each coefficient scaled to its largest magnitude: (20, frames)."""
    return _scaled_rows(mfcc(samples))


def cosine_distance(u: np.ndarray, v: np.ndarray) -> float:
    """scipy.spatial.distance.cosine, clipped to [0, 2] against rounding."""
    return float(np.clip(1.0 - np.dot(u, v) / math.sqrt(np.dot(u, u) * np.dot(v, v)), 0.0, 2.0))


def alignment(first: np.ndarray, second: np.ndarray) -> tuple[float, int]:
    """FastDTW of two `features` under the cosine distance: the total distance and the path's length."""
    distance, path = fastdtw(first.T, second.T, dist=cosine_distance)
    return float(distance), len(path)
