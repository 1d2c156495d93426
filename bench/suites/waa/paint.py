"""Microsoft Paint getters, on the image file a task's postconfig saves on the guest, as WAA's
getters/microsoftpaint.py reads it:

- `image_dimension_matches_input`: the image at `filepath` is exactly `width` x `height`
  pixels (the task gives them as strings); False when a field is empty;
- `is_red_circle_present_on_canvas`: WAA's `find_red_circle` on the screenshot at `filepath`:
  the red pixels (R at least 150, G and B at most 100) have a centroid and a mean distance from
  it, the radius; the square of that radius around the centroid must be more than 80% white
  (every channel at least 200). A red ring on a white canvas passes; a filled disc, or red
  scattered over a darker picture, does not. No file is False (WAA's 0, equal to False).

Where WAA's getter raises, so that WAA's evaluate() scores the task 0, these fail
(`GetterFailed`) and the checker scores it the same: an image file that is not there
(PIL opens None) or that is not an image.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

from actors.backends.waa.client import WAAClient
from bench.suites.waa.errors import GetterFailed
from bench.suites.waa.guest import fetch_file

RED_LOW, RED_HIGH = np.array([150, 0, 0]), np.array([255, 100, 100])
WHITE_LOW, WHITE_HIGH = np.array([200, 200, 200]), np.array([255, 255, 255])
WHITE_SHARE = 0.8
"""More than this share of the circle's square must be white."""


def _image(data: bytes | None, getter: str, path: str) -> Image.Image:
    if data is None:
        raise GetterFailed(f"{getter}: no image at {path} (WAA's getter opens None)")
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError) as exc:
        raise GetterFailed(f"{getter}: {path} is not an image PIL opens ({exc})") from None
    return image


async def image_dimension_matches_input(client: WAAClient, spec: dict[str, Any]) -> bool:
    path = spec["filepath"]
    if not path or not spec["width"] or not spec["height"]:
        return False
    image = _image(await fetch_file(client, path, "image_dimension_matches_input"), "image_dimension_matches_input",
                   path)
    return image.width == float(spec["width"]) and image.height == float(spec["height"])


def has_red_circle(image: Image.Image) -> bool:
    pixels = np.array(image.convert("RGB"))
    red = ((pixels >= RED_LOW) & (pixels <= RED_HIGH)).all(axis=-1)
    white = ((pixels >= WHITE_LOW) & (pixels <= WHITE_HIGH)).all(axis=-1)
    rows, columns = np.where(red)
    if rows.size == 0:
        return False
    x, y = np.mean(columns), np.mean(rows)
    radius = int(np.mean(np.sqrt((columns - x) ** 2 + (rows - y) ** 2)))
    inside = white[int(y - radius):int(y + radius), int(x - radius):int(x + radius)]
    if inside.size == 0:
        return False
    return bool(np.sum(inside) / inside.size > WHITE_SHARE)


async def is_red_circle_present_on_canvas(client: WAAClient, spec: dict[str, Any]) -> bool:
    path = spec["filepath"]
    if not path:
        return False
    data = await fetch_file(client, path, "is_red_circle_present_on_canvas")
    if not data:
        return False
    return has_red_circle(_image(data, "is_red_circle_present_on_canvas", path))


PAINT_GETTERS = {
    "image_dimension_matches_input": image_dimension_matches_input,
    "is_red_circle_present_on_canvas": is_red_circle_present_on_canvas,
}
