"""Whether the agent made the edit a GIMP task asks for: OSWorld's metrics/gimp.py checks of a
picture's brightness, saturation, contrast, layout, size and file size, on the files' bytes.

Each makes the Pillow and numpy calls OSWorld's function makes, in its
order, the structure checks from image_similarity.py; the result file comes
first, the expected one second (OSWorld's src and tgt):

- `check_brightness_decrease_and_structure_sim`: the expected picture is
  brighter (the mean of its grey), and the two, each with its pixels scaled
  so that its grey mean is 128 (truncated, clipped to 255; every band,
  alpha too), have a mean squared difference under `threshold` (0.03);
  an all-black picture divides by zero in OSWorld, so it raises;
- `check_saturation_increase_and_structure_sim`: the result's mean HSV
  saturation is higher, and its hue and value bands have the expected
  one's structure;
- `check_contrast_increase_and_structure_sim`: the result's pixels (as
  numpy reads its mode: palette indices for a palette image, alpha
  included) spread more (float32 standard deviation), and the structure is
  the same at threshold 0.65;
- `check_triangle_position`: the second most common colour's pixels (ties
  ordered as numpy's argsort orders them) centred within 5% of each side
  from the picture's centre; a picture of one band or one colour raises;
- `check_textbox_on_leftside`: a pixel darker than 128 in grey within the
  left 5% of the width;
- `check_green_background`: every pixel of the expected picture that is
  not black (its first three channels) is green in the result (G above R
  and above B). OSWorld visits `pixels[x, y]` with x over the width and y
  over the height, so it reads row x, column y: on a picture that is not
  square it runs off the array (IndexError) unless a pixel that is not
  green came first, and so does this;
- `check_image_size`: the width and height the rule names (either may be
  left out); with `ignore_transparent` those of the opaque part of a picture
  with alpha; and, as OSWorld's `and`/`or` precedence reads it, of any
  picture with a transparent colour, whatever the rule says;
- `check_image_file_size`: the file is under the rule's `max_size` bytes.

No result file (None) scores 0; a rule that is not a dict, or lacks
`max_size`, raises, as it does in OSWorld (`MetricFailed`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageStat

from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.image_similarity import opened, same_by_mse, same_structure

NORMAL_BRIGHTNESS = 128
CENTRE_TOLERANCE = 0.05
LEFT_SIDE = 0.05
DARK = 128


def _raises(metric: str, why: str) -> MetricFailed:
    return MetricFailed(f"{metric}: {why} (OSWorld's function raises here)")


def _brightness(image: Image.Image) -> float:
    return ImageStat.Stat(image.convert("L")).mean[0]


def _normalized(image: Image.Image, metric: str) -> Image.Image:
    brightness = _brightness(image)
    if brightness == 0:
        raise _raises(metric, "a picture is all black, so scaling it to a brightness divides by zero")
    factor = NORMAL_BRIGHTNESS / brightness
    return image.point(lambda value: min(255, max(0, int(value * factor))))


def check_brightness_decrease_and_structure_sim(result: bytes | None, expected: bytes | None,
                                                threshold: float = 0.03) -> float:
    if result is None or expected is None:
        return 0.0
    metric = "check_brightness_decrease_and_structure_sim"
    mine, gold = opened(result, metric), opened(expected, metric)
    darker = _brightness(gold) > _brightness(mine)
    same = same_by_mse(_normalized(mine, metric), _normalized(gold, metric), threshold=threshold)
    return float(darker and same)


def check_saturation_increase_and_structure_sim(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    metric = "check_saturation_increase_and_structure_sim"
    mine, gold = opened(result, metric).convert("HSV"), opened(expected, metric).convert("HSV")
    more = np.mean(np.array(gold.split()[1])) < np.mean(np.array(mine.split()[1]))
    (hue, _, value), (gold_hue, _, gold_value) = mine.split(), gold.split()
    same = same_structure(hue, gold_hue) and same_structure(value, gold_value)
    return float(more and same)


def _contrast(image: Image.Image) -> float:
    return np.std(np.asarray(image, dtype=np.float32))


def check_contrast_increase_and_structure_sim(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    metric = "check_contrast_increase_and_structure_sim"
    mine, gold = opened(result, metric), opened(expected, metric)
    more = _contrast(gold) < _contrast(mine)
    return float(same_structure(mine, gold, threshold=0.65) and more)


def check_triangle_position(result: bytes | None) -> float:
    if result is None:
        return 0.0
    metric = "check_triangle_position"
    pixels = np.array(opened(result, metric))
    if pixels.ndim < 3:
        raise _raises(metric, f"the picture has one band ({pixels.shape}), where OSWorld reads colours")
    colours, counts = np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0, return_counts=True)
    if len(colours) < 2:
        raise _raises(metric, "the picture has one colour, so no second one to take for the triangle")
    triangle = colours[np.argsort(counts)][1]
    centroid = np.argwhere(np.all(pixels == triangle, axis=2)).mean(axis=0)
    shape = np.array(pixels.shape[:2])
    return float(np.all(np.abs(centroid - shape / 2) < CENTRE_TOLERANCE * shape))


def check_textbox_on_leftside(result: bytes | None) -> float:
    if result is None:
        return 0.0
    image = opened(result, "check_textbox_on_leftside")
    width = image.size[0]
    dark_columns = np.flatnonzero((np.asarray(image.convert("L")) < DARK).any(axis=0))
    leftmost = dark_columns[0] if len(dark_columns) else width
    return float(leftmost < width * LEFT_SIDE)


def _visited(width: int, height: int) -> tuple[int, int, bool]:
    """The rows and columns of the block OSWorld's `pixels[x, y]` loop reads in order before it runs off
    the array, and whether it runs off."""
    if height > width:
        return 1, width, True  # the first row, until y reaches the width
    if height < width:
        return height, height, True  # every row the height allows, columns up to the height
    return height, width, False


def check_green_background(result: bytes | None, expected: bytes | None) -> float:
    if result is None or expected is None:
        return 0.0
    metric = "check_green_background"
    source, target = opened(result, metric), opened(expected, metric)
    mine, gold = np.array(source), np.array(target)
    rows, columns, runs_off = _visited(target.width, target.height)
    if rows * columns == 0:
        return 1.0
    if gold.ndim < 3:
        raise _raises(metric, "a pixel of the expected picture is one number, which OSWorld slices")
    block = gold[:rows, :columns].reshape(rows * columns, gold.shape[2])
    coloured = (block[:, :3] != 0).any(axis=1) if block.shape[1] >= 3 else np.ones(len(block), dtype=bool)
    visits = np.flatnonzero(coloured)
    if len(visits):
        if mine.ndim < 3 or mine.shape[2] < 3:
            raise _raises(metric, f"the result's pixels are not three channels ({mine.shape})")
        xs, ys = np.divmod(visits, columns)
        inside = (xs < mine.shape[0]) & (ys < mine.shape[1])
        red, green, blue = (mine[np.minimum(xs, mine.shape[0] - 1), np.minimum(ys, mine.shape[1] - 1), channel]
                            for channel in range(3))
        wrong = np.flatnonzero(~inside | ~((green > red) & (green > blue)))
        if len(wrong):
            if not inside[wrong[0]]:
                raise _raises(metric, f"the result is smaller than the expected picture ({mine.shape[:2]} at "
                                      f"row {xs[wrong[0]]}, column {ys[wrong[0]]})")
            return 0.0
    if runs_off:
        raise _raises(metric, f"the expected picture is not square ({target.width}x{target.height}) and every "
                              "pixel read before its loop runs off the array was green")
    return 1.0


def _rule(rule: Any, metric: str) -> dict[str, Any]:
    if not isinstance(rule, dict):
        raise _raises(metric, f"expected a rule, got {rule!r}")
    return rule


def check_image_size(result: bytes | None, rule: Any) -> float:
    if result is None:
        return 0.0
    image = opened(result, "check_image_size")
    rule = _rule(rule, "check_image_size")
    width, height = image.size
    if rule.get("ignore_transparent", False) and image.mode in ("RGBA", "LA") or "transparency" in image.info:
        opaque = (image if image.mode == "RGBA" else image.convert("RGBA")).split()[-1].getbbox()
        width, height = (0, 0) if opaque is None else (opaque[2] - opaque[0], opaque[3] - opaque[1])
    return float((rule.get("height") is None or height == rule["height"])
                 and (rule.get("width") is None or width == rule["width"]))


def check_image_file_size(result: bytes | None, rule: Any) -> float:
    if result is None:
        return 0.0
    rule = _rule(rule, "check_image_file_size")
    if "max_size" not in rule:
        raise _raises("check_image_file_size", f"the rule has no `max_size`: {rule!r}")
    try:
        return float(len(result) < rule["max_size"])
    except TypeError:
        raise _raises("check_image_file_size", f"`max_size` is not a number: {rule['max_size']!r}") from None


EDIT_METRICS = {metric.__name__: metric for metric in (
    check_brightness_decrease_and_structure_sim, check_saturation_increase_and_structure_sim,
    check_contrast_increase_and_structure_sim, check_triangle_position, check_textbox_on_leftside,
    check_green_background, check_image_size, check_image_file_size)}
