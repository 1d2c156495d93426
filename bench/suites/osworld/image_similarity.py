"""Whether a picture the agent saved is the task's picture: OSWorld's structure comparisons (its
metrics/gimp.py) and `compare_images` (its vlc.py), on the files' bytes.

OSWorld opens the files with Pillow and compares with scikit-image; troupe
makes the same Pillow calls and computes the SSIM on numpy
(bench.formats.ssim). Its two structure checks, which the GIMP metrics
build on:

- `same_structure` (OSWorld's structure_check_by_ssim): False for an image
  under 7 pixels on a side or for two sizes; else both in RGB, the mean of
  the channels' SSIM (7x7 windows) at least `threshold` (0.9);
- `same_by_mse` (structure_check_by_mse): the first resized with Lanczos to
  the second's size, both in RGB, the mean squared difference of the pixels
  scaled to [0, 1] (float32) below `threshold` (0.03).

The metrics, each taking the result then the expected file:

- `compare_images`: the SSIM of the two pictures in grey at the smaller
  size, the same as WAA's (bench.formats.ssim.grey_ssim_at_smaller_size);
  with option `reference_base_result` b, 0 unless the SSIM reaches b + 0.01,
  else how far it got from b towards 1;
- `compare_image_list`: 1 when each result picture, resized with Lanczos to
  its gold one's size and converted to its mode, differs from it nowhere
  that Pillow's `ImageChops.difference(...).getbbox()` sees (for pictures
  with alpha, Pillow looks at the alpha only); a missing file scores 0;
- `check_structure_sim`: the same size and the same structure; anything
  that raises scores 0, as OSWorld catches it;
- `check_structure_sim_resized`: the result cropped to its opaque part when
  it has transparency (none at all scores 0), resized (Pillow's default
  filter) to the gold's size, the same structure;
- `check_structure_sim_with_threshold`: the result resized with Lanczos to
  the gold's size, both in RGB, SSIM at least `ssim_threshold` (0.85), with
  a window the image's smaller side (when under 7, odd) allows; anything
  that fails scores 0;
- `check_file_exists_and_structure_sim`, `check_image_mirror` (the result
  flipped left to right, threshold 0.99), `check_palette_and_structure_sim`
  (the result a palette image, and the same structure in RGB; an empty or
  unreadable file, and any failure after, scores 0).

A file Pillow cannot identify raises in OSWorld where it does not catch it,
so the task gets no score: `MetricFailed` here; no result file (None)
scores 0 where OSWorld's function checks for None.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image, ImageChops, UnidentifiedImageError

from bench.formats.ssim import SsimUndefined, grey_ssim_at_smaller_size, ssim_channels
from bench.suites.osworld.errors import MetricFailed

SMALLEST = 7
"""The side below which OSWorld's structure check calls two pictures different without measuring."""
BASE_MARGIN = 0.01


def opened(data: bytes, metric: str) -> Image.Image:
    """The picture in `data`, as Image.open reads it (lazily); MetricFailed when Pillow cannot identify it."""
    try:
        return Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError) as exc:
        raise MetricFailed(f"{metric}: Pillow cannot read the picture ({exc}; OSWorld's function raises here)") \
            from None


def _rgb(image: Image.Image) -> Image.Image:
    return image if image.mode == "RGB" else image.convert("RGB")


def same_structure(first: Image.Image, second: Image.Image, threshold: float = 0.9) -> bool:
    if min(first.width, first.height, second.width, second.height) < SMALLEST:
        return False
    first, second = _rgb(first), _rgb(second)
    if first.size != second.size:
        return False
    try:
        return ssim_channels(np.array(first), np.array(second)) >= threshold
    except SsimUndefined:
        return False


def same_by_mse(first: Image.Image, second: Image.Image, threshold: float = 0.03) -> bool:
    if first.size != second.size:
        first = first.resize(second.size, Image.Resampling.LANCZOS)
    first, second = _rgb(first), _rgb(second)
    error = np.mean((np.array(first, dtype=np.float32) / 255 - np.array(second, dtype=np.float32) / 255) ** 2)
    return bool(error < threshold)


def compare_images(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    base = options.get("reference_base_result", None)
    try:
        similarity = grey_ssim_at_smaller_size(opened(result, "compare_images"), opened(expected, "compare_images"))
    except SsimUndefined as exc:
        raise MetricFailed(f"compare_images: {exc} (scikit-image raises here, and so OSWorld's function)") from None
    if base is None:
        return similarity
    return (similarity - base) / (1 - base) if similarity >= base + BASE_MARGIN else 0.0


def compare_image_list(result: Any, expected: Any) -> float:
    if not isinstance(result, list):
        result, expected = [result], [expected]
    for mine, gold in zip(result, expected):
        if mine is None or gold is None:
            return 0.0
        mine, gold = opened(mine, "compare_image_list"), opened(gold, "compare_image_list")
        if mine.size != gold.size:
            mine = mine.resize(gold.size, Image.Resampling.LANCZOS)
        if mine.mode != gold.mode:
            mine = mine.convert(gold.mode)
        if ImageChops.difference(mine, gold).getbbox():
            return 0.0
    return 1.0


def check_structure_sim(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        mine, gold = Image.open(io.BytesIO(result)), Image.open(io.BytesIO(expected))
        return float(mine.size == gold.size and same_structure(mine, gold))
    except Exception:  # noqa: BLE001 - OSWorld's function catches everything here and scores 0
        return 0.0


def check_structure_sim_resized(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    mine = opened(result, "check_structure_sim_resized")
    gold = opened(expected, "check_structure_sim_resized")
    if mine.mode in ("RGBA", "LA") or "transparency" in mine.info:
        mine = mine if mine.mode == "RGBA" else mine.convert("RGBA")
        opaque = mine.split()[-1].getbbox()
        if opaque is None:
            return 0.0
        mine = mine.crop(opaque).convert("RGB")
    return float(same_structure(mine.resize(gold.size), _rgb(gold)))


def _window(side: int) -> int:
    """OSWorld's SSIM window for an image whose smaller side is `side`: 7, or the largest odd size it allows."""
    return SMALLEST if side >= SMALLEST else side if side % 2 else side - 1


def check_structure_sim_with_threshold(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    threshold = options.get("ssim_threshold", 0.85)
    try:
        mine, gold = Image.open(io.BytesIO(result)), Image.open(io.BytesIO(expected))
        if mine.size != gold.size:
            mine = mine.resize(gold.size, Image.Resampling.LANCZOS)
        first, second = np.array(_rgb(mine)), np.array(_rgb(gold))
        window = _window(min(first.shape[0], first.shape[1]))
        if window < 1:
            return 0.0
        return float(ssim_channels(first, second, window) >= threshold)
    except Exception:  # noqa: BLE001 - OSWorld's function catches everything here and scores 0
        return 0.0


def check_file_exists_and_structure_sim(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    metric = "check_file_exists_and_structure_sim"
    return float(same_structure(opened(result, metric), opened(expected, metric)))


def check_image_mirror(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    mine, gold = opened(result, "check_image_mirror"), opened(expected, "check_image_mirror")
    return float(same_structure(mine.transpose(Image.Transpose.FLIP_LEFT_RIGHT), gold, 0.99))


def _loaded(data: bytes) -> Image.Image | None:
    """The picture decoded, or None for an empty file or one Pillow cannot decode (OSWorld then scores 0)."""
    if not data:
        return None
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
        return image
    except Exception:  # noqa: BLE001 - OSWorld's opener catches everything and gives None
        return None


def check_palette_and_structure_sim(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    mine = _loaded(result)
    gold = None if mine is None else _loaded(expected)
    if mine is None or gold is None:
        return 0.0
    try:
        return float(mine.mode == "P" and same_structure(mine.convert("RGB"), gold))
    except Exception:  # noqa: BLE001 - as OSWorld's
        return 0.0


SIMILARITY_METRICS = {metric.__name__: metric for metric in (
    compare_images, compare_image_list, check_structure_sim, check_structure_sim_resized,
    check_structure_sim_with_threshold, check_file_exists_and_structure_sim, check_image_mirror,
    check_palette_and_structure_sim)}
