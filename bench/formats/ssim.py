"""Structural similarity as scikit-image's `structural_similarity` computes it, on numpy.

WAA's and OSWorld's image checks call scikit-image; troupe computes the same
quantity without it (and without scipy underneath), on uint8 pixels:
uniform `window` x `window` windows (7 unless a caller says otherwise),
the uint8 data range (255, which scikit-image takes from the dtype), the
sample covariance, K1 0.01 and K2 0.03, and the mean of the index over every
full window (scikit-image filters the whole image, then crops the border
the window cannot fill). `ssim` takes two greys, `ssim_channels` two
height x width x channel arrays (scikit-image's `channel_axis=2`: the mean
of each channel's index). Where scikit-image raises, these raise
`SsimUndefined`: shapes that differ, a window larger than the image or
even; a 1-pixel window divides by zero in scikit-image (its sample
covariance over one sample), and raises here too.

`grey_ssim_at_smaller_size`: both references' compare_images, the two
pictures in grey resized with Lanczos to the smaller size, "smaller" by
Python's comparison of (width, height) tuples, so the narrower image wins
even when it is taller.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from protocols import TroupeError

__all__ = ["WINDOW", "SsimUndefined", "grey_ssim_at_smaller_size", "ssim", "ssim_channels"]

WINDOW = 7
K1, K2, DATA_RANGE = 0.01, 0.03, 255.0


class SsimUndefined(TroupeError, ValueError):
    """Two images scikit-image's structural_similarity raises on; the message says why."""


def _window_sums(values: np.ndarray, window: int) -> np.ndarray:
    """The sum over each full window, separably: a window's rows, then its columns."""
    rows = values.shape[0] - window + 1
    down = values[:rows].copy()
    for offset in range(1, window):
        down += values[offset:offset + rows]
    columns = values.shape[1] - window + 1
    across = down[:, :columns].copy()
    for offset in range(1, window):
        across += down[:, offset:offset + columns]
    return across


def ssim(first: np.ndarray, second: np.ndarray, window: int = WINDOW) -> float:
    """The mean structural similarity of two uint8 greys of one shape."""
    if first.shape != second.shape:
        raise SsimUndefined(f"the images' shapes differ: {first.shape} and {second.shape}")
    if min(first.shape) < window:
        raise SsimUndefined(f"an image of {first.shape[1]}x{first.shape[0]} pixels is smaller than the "
                            f"{window}x{window} window")
    if window % 2 == 0:
        raise SsimUndefined(f"the window ({window}) is even")
    samples = window * window
    if samples == 1:
        raise SsimUndefined("a 1x1 window has no sample covariance")
    x, y = first.astype(np.float64), second.astype(np.float64)
    covariance = samples / (samples - 1)

    def mean(values: np.ndarray) -> np.ndarray:
        return _window_sums(values, window) / samples

    ux, uy = mean(x), mean(y)
    vx = covariance * (mean(x * x) - ux * ux)
    vy = covariance * (mean(y * y) - uy * uy)
    vxy = covariance * (mean(x * y) - ux * uy)
    c1, c2 = (K1 * DATA_RANGE) ** 2, (K2 * DATA_RANGE) ** 2
    index = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
    return float(index.mean(dtype=np.float64))


def ssim_channels(first: np.ndarray, second: np.ndarray, window: int = WINDOW) -> float:
    """The mean of each channel's structural similarity, for two height x width x channel uint8 arrays."""
    if first.shape != second.shape:
        raise SsimUndefined(f"the images' shapes differ: {first.shape} and {second.shape}")
    return float(np.mean([ssim(first[..., channel], second[..., channel], window)
                          for channel in range(first.shape[2])]))


def grey_ssim_at_smaller_size(first: Image.Image, second: Image.Image) -> float:
    """The grey structural similarity of two pictures, both resized to the smaller one's size."""
    mine, gold = first.convert("L"), second.convert("L")
    size = min(mine.size, gold.size)
    mine, gold = mine.resize(size, Image.Resampling.LANCZOS), gold.resize(size, Image.Resampling.LANCZOS)
    return ssim(np.asarray(mine), np.asarray(gold))
