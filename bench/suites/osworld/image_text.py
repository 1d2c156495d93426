"""`compare_image_text`: the text OCR reads in a picture holds the rule's text, as OSWorld's metrics/docs.py
judges it, with the OCR it uses (easyocr, English).

easyocr brings torch and downloads its detection and recognition models on
first use, so troupe does not depend on it: where it is importable the
metric runs, otherwise it raises `MetricFailed` naming it with the install
hint, and `--list` names it as what the task lacks (`PYTHON_PACKAGES`).

As OSWorld's: a missing picture scores 0; an X11 screen dump (XWD, what
`xwd` writes) is turned into a picture first (Pillow, else OSWorld's
24- and 32-bit reader: 32-bit pixels are BGRA); the texts easyocr reads are
joined with spaces, and with rule type `text` the score is 1 when the
rule's `text` is in them. Anything that fails from there on (OCR, another
rule type, a rule without `text`) scores 0, as OSWorld's function catches it.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import struct
from typing import Any

from bench.suites.osworld.errors import MetricFailed

EASYOCR_HINT = "pip install easyocr; it brings torch and downloads its OCR models on first use"
PYTHON_PACKAGES = {"compare_image_text": ("easyocr", EASYOCR_HINT)}
"""Metrics that need a Python package troupe does not depend on -> the package and how to install it."""
_XWD_VERSION = 7


def importable(package: str) -> bool:
    """Whether `package` is installed; a module made up in sys.modules (it has no spec) is not."""
    try:
        return importlib.util.find_spec(package) is not None
    except ValueError:
        return False


@functools.cache
def _reader() -> Any:
    import easyocr  # optional: see the module's docstring

    return easyocr.Reader(["en"])


def _is_xwd(data: bytes) -> bool:
    return len(data) >= 100 and struct.unpack(">I", data[4:8])[0] == _XWD_VERSION


def _xwd_pixels(data: bytes) -> Any:
    """OSWorld's own XWD reader: 24-bit RGB or 32-bit BGRA pixels after the header, as RGB."""
    import numpy as np  # only for screen dumps

    header_size, _, _, depth, width, height = struct.unpack(">6I", data[:24])
    channels = {32: 4, 24: 3}.get(depth)
    if channels is None:
        raise ValueError(f"unsupported X11 pixel depth {depth}")
    pixels = np.frombuffer(data[header_size:header_size + width * height * channels], dtype=np.uint8)
    pixels = pixels.reshape((height, width, channels))
    return pixels[:, :, [2, 1, 0]] if channels == 4 else pixels


def _picture(data: bytes) -> Any:
    """What easyocr reads: the file's bytes, or a screen dump as an RGB array."""
    if not _is_xwd(data):
        return data
    import numpy as np
    from PIL import Image  # only for screen dumps

    try:
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    except Exception:  # noqa: BLE001 - Pillow may not read it: OSWorld then tries its own reader
        try:
            return _xwd_pixels(data)
        except Exception:  # noqa: BLE001 - OSWorld then hands easyocr the file as it is
            return data


def compare_image_text(picture: bytes | None, rule: Any, **options: Any) -> int:
    if not picture:
        return 0
    if not importable("easyocr"):
        raise MetricFailed(f"compare_image_text reads the picture's text with easyocr, which is not installed: "
                           f"{EASYOCR_HINT}")
    try:
        text = " ".join(entry[1] for entry in _reader().readtext(_picture(bytes(picture))))
        if rule["type"] != "text":
            raise ValueError("unsupported rule type")
        return int(rule["text"] in text)
    except Exception:  # noqa: BLE001 - OSWorld's function scores whatever fails here 0
        return 0


IMAGE_TEXT_METRICS = {"compare_image_text": compare_image_text}
