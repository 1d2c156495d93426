"""Microsoft Paint getters, on the image file a task's postconfig saves on the guest.

WAA's microsoftpaint.py was not among the reference sources this project
could read, so these two follow the task files' intent and WAA's getter
conventions (a file fetched through /file, a bool compared with
exact_match against `true`); their verdicts are checked against images
built here, not against WAA's:

- `image_dimension_matches_input`: the image at `filepath` is exactly
  `width` x `height` pixels (the task gives them as strings);
- `is_red_circle_present_on_canvas`: the screenshot at `filepath` shows a
  red circle: a connected red region (HSV hue within 10 of red, saturation
  and value at least 100) of at least `MIN_AREA` pixels whose outline is
  round (circularity 4πA/P² at least `MIN_CIRCULARITY`) and fills its
  enclosing circle (at least `MIN_FILL`), which a red square such as
  Paint's palette swatch does not (2/π).

A missing file, or one that is not an image, is False: there is nothing on
the canvas to judge.
"""

from __future__ import annotations

import io
import math
from typing import Any

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from actors.backends.waa.client import WAAClient
from bench.suites.waa.guest import fetch_file

MIN_AREA = 300
MIN_CIRCULARITY = 0.75
MIN_FILL = 0.75


def _image(data: bytes | None) -> Image.Image | None:
    if not data:
        return None
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError):
        return None
    return image


async def image_dimension_matches_input(client: WAAClient, spec: dict[str, Any]) -> bool:
    wanted = (int(spec["width"]), int(spec["height"]))
    image = _image(await fetch_file(client, spec["filepath"], "image_dimension_matches_input"))
    return image is not None and image.size == wanted


def red_mask(image: Image.Image) -> np.ndarray:
    hsv = cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2HSV)
    low = cv2.inRange(hsv, np.array([0, 100, 100]), np.array([10, 255, 255]))
    high = cv2.inRange(hsv, np.array([170, 100, 100]), np.array([180, 255, 255]))
    return cv2.bitwise_or(low, high)


def has_red_circle(image: Image.Image) -> bool:
    contours, _ = cv2.findContours(red_mask(image), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    for contour in contours:
        area, perimeter = cv2.contourArea(contour), cv2.arcLength(contour, True)
        if area < MIN_AREA or perimeter == 0:
            continue
        _, radius = cv2.minEnclosingCircle(contour)
        if 4 * math.pi * area / perimeter ** 2 >= MIN_CIRCULARITY and area / (math.pi * radius ** 2) >= MIN_FILL:
            return True
    return False


async def is_red_circle_present_on_canvas(client: WAAClient, spec: dict[str, Any]) -> bool:
    image = _image(await fetch_file(client, spec["filepath"], "is_red_circle_present_on_canvas"))
    return image is not None and has_red_circle(image)


PAINT_GETTERS = {
    "image_dimension_matches_input": image_dimension_matches_input,
    "is_red_circle_present_on_canvas": is_red_circle_present_on_canvas,
}
