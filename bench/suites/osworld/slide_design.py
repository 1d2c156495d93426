"""How an Impress deck's slides look beyond their content, as OSWorld's metrics/slides.py reads a saved
pptx: the page's orientation, the background fill, a slide's transition, the slide number's colour.

- `check_slide_orientation_Portrait`: python-pptx's slide width is less
  than its height (no result file is python-pptx's default deck, landscape).
- `evaluate_presentation_fill_to_rgb_distance`: one minus the mean, over
  the slides, of each background's distance to the rule's `rgb` (Euclidean
  over the three channels, divided by white's distance from black). A
  slide's colour is its solid fill's, or, when it inherits, its master's
  solid fill's; a slide with any other fill, a colour with no rgb (a theme
  colour) or the rule's `original_rgb` counts the whole distance, 1. A deck
  with no slides raises in OSWorld.
- `check_transition`: the part `ppt/slides/slide{slide_idx + 1}.xml` (by
  its name, as OSWorld opens it; no such part scores 0) has a
  `p:transition` whose first occurrence holds a `p:{transition_type}`.
- `check_page_number_colors`: a colour read from the part
  `ppt/slideMasters/slideMaster1.xml` the way OSWorld searches it, first
  found wins: a colour inside the slide-number placeholder's `p:ph`
  element; inside a slide-number, footer or date placeholder's; the last
  run colour that is not 000000; the last fill colour that is not 000000;
  the last fill colour. It scores 1 unless the rule's `color` is red, blue,
  green or black and the colour is not clearly that (one channel 50 above
  the other two; black: each channel under 50); no colour, or one that is
  not six hex digits, scores 0.

Each reads its rule's keys before the file, as OSWorld's do, and a missing key, a file that is not a
deck, or a part that is not XML raises MetricFailed (OSWorld's function raises: no score). The XML is
searched with OSWorld's own ElementTree paths, so what they find (and what they reject) is the same.
"""

from __future__ import annotations

import io
import math
import zipfile
from typing import Any
from xml.etree import ElementTree

from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.slides import open_deck

_NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
       "p": "http://schemas.openxmlformats.org/presentationml/2006/main"}
_SOLID, _INHERITED = 1, 5  # python-pptx's MSO_FILL.SOLID, and MSO_FILL.BACKGROUND: no fill of the slide's own
_WHITE_FROM_BLACK = math.sqrt(255 ** 2 + 255 ** 2 + 255 ** 2)
_FILL_COLOUR = ".//a:solidFill//a:srgbClr"
_NUMBER_PLACES = ("sldNum", "ftr", "dt")
_HUES = {"red": lambda r, g, b: r > g + 50 and r > b + 50, "blue": lambda r, g, b: b > g + 50 and b > r + 50,
         "green": lambda r, g, b: g > r + 50 and g > b + 50, "black": lambda r, g, b: r < 50 and g < 50 and b < 50}


def _rule(rules: Any, key: str, metric: str) -> Any:
    try:
        return rules[key]
    except Exception:  # noqa: BLE001 - rules that are not a mapping with `key` raise in OSWorld
        raise MetricFailed(f"{metric}: expected rules with `{key}`, got {rules!r} "
                           "(OSWorld's function raises here)") from None


def _failed(metric: str, exc: Exception) -> MetricFailed:
    return MetricFailed(f"{metric}: {type(exc).__name__}: {exc} (OSWorld's function raises here)")


def check_slide_orientation_Portrait(result: bytes | None, **options: Any) -> float:
    deck = open_deck(result, "check_slide_orientation_Portrait")
    try:
        return float(deck.slide_width < deck.slide_height)
    except TypeError as exc:  # a deck without a slide size: python-pptx reads None
        raise _failed("check_slide_orientation_Portrait", exc) from None


def _rgb(colour: Any) -> Any:
    """The colour's rgb, or None when python-pptx has none for it (a theme colour)."""
    try:
        return colour.rgb
    except Exception:  # noqa: BLE001 - OSWorld's get_rgb_from_color reads any failure as no colour
        return None


def _fill_distance(slide: Any, rgb: Any, original: Any) -> float:
    fill = slide.background.fill
    if fill.type == _SOLID:
        colour = _rgb(fill.fore_color)
    elif fill.type == _INHERITED:
        master = slide.slide_layout.slide_master.background.fill
        if master.type != _SOLID:
            return 1
        colour = _rgb(master.fore_color)
    else:
        return 1
    if colour is None:
        return 1
    (r1, g1, b1), (r2, g2, b2) = colour, rgb
    if original is not None:
        r3, g3, b3 = original
        if r1 == r3 and g1 == g3 and b1 == b3:
            return 1
    return math.sqrt((r1 - r2) ** 2 + (g1 - g2) ** 2 + (b1 - b2) ** 2) / _WHITE_FROM_BLACK


def evaluate_presentation_fill_to_rgb_distance(result: bytes | None, rules: Any, **options: Any) -> float:
    metric = "evaluate_presentation_fill_to_rgb_distance"
    rgb = _rule(rules, "rgb", metric)
    original = rules.get("original_rgb") if isinstance(rules, dict) else None
    deck = open_deck(result, metric)
    try:
        return 1 - sum(_fill_distance(slide, rgb, original) for slide in deck.slides) / len(deck.slides)
    except Exception as exc:  # noqa: BLE001 - no slides, an rgb not of three numbers: OSWorld's raises
        raise _failed(metric, exc) from None


def _part(result: bytes | None, name: Any, metric: str) -> ElementTree.Element | None:
    """The root of the deck's part `name`, or None when the deck has no such part."""
    if result is None:
        raise MetricFailed(f"{metric}: no file to read (OSWorld's function raises here)")
    try:
        with zipfile.ZipFile(io.BytesIO(result)) as deck:
            if name not in deck.namelist():
                return None
            with deck.open(name) as part:
                return ElementTree.parse(part).getroot()
    except Exception as exc:  # noqa: BLE001 - not a zip, a damaged part, a part that is not XML
        raise _failed(metric, exc) from None


def check_transition(result: bytes | None, rules: Any, **options: Any) -> float:
    metric = "check_transition"
    index, kind = _rule(rules, "slide_idx", metric), _rule(rules, "transition_type", metric)
    try:
        name = f"ppt/slides/slide{index + 1}.xml"
    except TypeError as exc:
        raise _failed(metric, exc) from None
    root = _part(result, name, metric)
    if root is None:
        return 0.0
    try:
        transition = root.find(".//p:transition", _NS)
        return float(transition is not None and transition.find(f".//p:{kind}", _NS) is not None)
    except SyntaxError as exc:  # a transition type ElementTree's path syntax rejects
        raise _failed(metric, exc) from None


def _slide_number_colour(master: ElementTree.Element) -> str | None:
    """The `val` of the colour OSWorld takes for the slide number, searched in its order."""
    found = None
    placeholder = master.find('.//p:ph[@type="sldNum"]', _NS)
    if placeholder is not None:
        colour = placeholder.find(_FILL_COLOUR, _NS)
        if colour is not None:
            found = colour.get("val")
    if found is None:
        for placeholder in master.findall(".//p:ph", _NS):
            if placeholder.get("type") in _NUMBER_PLACES:
                colour = placeholder.find(_FILL_COLOUR, _NS)
                if colour is not None:
                    found = colour.get("val")
                    break
    for path in (".//a:rPr//a:solidFill//a:srgbClr", _FILL_COLOUR):
        if found is None:
            found = next((value for value in (colour.get("val") for colour in reversed(master.findall(path, _NS)))
                          if value and value != "000000"), None)
    if found is None:
        colours = master.findall(_FILL_COLOUR, _NS)
        found = colours[-1].get("val") if colours else None
    return found


def _channels(value: str | None) -> tuple[int, int, int] | None:
    """Six hex digits (after any leading #) as red, green, blue; None otherwise."""
    if value is None:
        return None
    digits = value.lstrip("#")
    if len(digits) != 6:
        return None
    try:
        return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)
    except ValueError:
        return None


def check_page_number_colors(result: bytes | None, rules: Any, **options: Any) -> float:
    metric = "check_page_number_colors"
    wanted = _rule(rules, "color", metric)
    master_name = "ppt/slideMasters/slideMaster1.xml"
    master = _part(result, master_name, metric)
    if master is None:
        raise MetricFailed(f"{metric}: the deck has no {master_name} (OSWorld's function raises here)")
    channels = _channels(_slide_number_colour(master))
    if channels is None:
        return 0.0
    hue = _HUES.get(wanted) if isinstance(wanted, str) else None
    return float(hue is None or hue(*channels))


SLIDE_DESIGN_METRICS = {
    "check_slide_orientation_Portrait": check_slide_orientation_Portrait,
    "evaluate_presentation_fill_to_rgb_distance": evaluate_presentation_fill_to_rgb_distance,
    "check_transition": check_transition,
    "check_page_number_colors": check_page_number_colors,
}
