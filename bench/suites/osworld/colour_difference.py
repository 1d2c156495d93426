"""The CIEDE2000 colour difference of two sRGB colours, as OSWorld's docs.py computes it with scikit-image
(`deltaE_ciede2000(rgb2lab(a), rgb2lab(b))`: sRGB to CIE Lab under illuminant D65 with the 2-degree
observer, weights kL = kC = kH = 1), in plain Python for one pair of colours at a time."""

from __future__ import annotations

import math

__all__ = ["ciede2000", "srgb_to_lab"]

_XYZ_FROM_RGB = ((0.412453, 0.357580, 0.180423), (0.212671, 0.715160, 0.072169), (0.019334, 0.119193, 0.950227))
_D65_WHITE = (0.95047, 1.0, 1.08883)


def _linear(channel: float) -> float:
    return ((channel + 0.055) / 1.055) ** 2.4 if channel > 0.04045 else channel / 12.92


def _lab_part(value: float) -> float:
    return math.cbrt(value) if value > 0.008856 else 7.787 * value + 16.0 / 116.0


def srgb_to_lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """An sRGB colour (each channel 0 to 1) in CIE Lab, as scikit-image's rgb2lab gives it."""
    linear = [_linear(c) for c in rgb]
    x, y, z = (_lab_part(sum(m * c for m, c in zip(row, linear)) / white)
               for row, white in zip(_XYZ_FROM_RGB, _D65_WHITE))
    return 116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z)


def _polar(x: float, y: float) -> tuple[float, float]:
    """Radius and angle in [0, 2 pi), as scikit-image's _cart2polar_2pi."""
    angle = math.atan2(y, x)
    return math.hypot(x, y), angle + 2 * math.pi if angle < 0.0 else angle


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """scikit-image's deltaE_ciede2000 for two Lab colours, step for step."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c7 = (0.5 * (math.hypot(a1, b1) + math.hypot(a2, b2))) ** 7
    scale = 1 + 0.5 * (1 - math.sqrt(c7 / (c7 + 25 ** 7)))
    (c1, h1), (c2, h2) = _polar(a1 * scale, b1), _polar(a2 * scale, b2)
    lightness = 0.5 * (l1 + l2)
    tmp = (lightness - 50) ** 2
    l_term = (l2 - l1) / (1 + 0.015 * tmp / math.sqrt(20 + tmp))
    chroma = 0.5 * (c1 + c2)
    c_term = (c2 - c1) / (1 + 0.045 * chroma)
    h_diff, h_sum, cc = h2 - h1, h1 + h2, c1 * c2
    d_h = h_diff - 2 * math.pi if h_diff > math.pi else h_diff + 2 * math.pi if h_diff < -math.pi else h_diff
    if cc == 0.0:
        d_h = 0.0
    dh_term = 2 * math.sqrt(cc) * math.sin(d_h / 2)
    hue = h_sum
    if cc != 0.0 and abs(h_diff) > math.pi:
        hue += 2 * math.pi if h_sum < 2 * math.pi else -2 * math.pi
    if cc == 0.0:
        hue *= 2
    hue *= 0.5
    t = (1 - 0.17 * math.cos(hue - math.radians(30)) + 0.24 * math.cos(2 * hue)
         + 0.32 * math.cos(3 * hue + math.radians(6)) - 0.20 * math.cos(4 * hue - math.radians(63)))
    h_term = dh_term / (1 + 0.015 * chroma * t)
    c7 = chroma ** 7
    rotation = 2 * math.sqrt(c7 / (c7 + 25 ** 7))
    d_theta = math.radians(30) * math.exp(-(((math.degrees(hue) - 275) / 25) ** 2))
    r_term = -math.sin(2 * d_theta) * rotation * c_term * h_term
    return math.sqrt(max(l_term ** 2 + c_term ** 2 + h_term ** 2 + r_term, 0))
