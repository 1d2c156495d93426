"""Pictures in an Impress deck (a .pptx) as OSWorld reads them: its `check_image_stretch_and_center`
metric (metrics/slides.py) and its `background_image_in_slide` getter (getters/impress.py).

- `check_image_stretch_and_center`: the first picture on the gold deck's
  first slide is, on the result's first slide, a picture with the same
  bytes (the last such, if several) that covers the gold deck's slide to
  within half an inch in width and height and is centred on it to within
  half an inch. No picture on the gold slide, or no same picture on the
  result's, scores 0; a deck without a slide raises, as python-pptx's empty
  default deck does where OSWorld opens None (no result file);
- `background_image_in_slide`: the picture the slide's background
  (`p:bgPr`) fills with: the first `a:blip` of the first background that
  names one by `r:embed`, looked up by that id in the slide's relationships
  (the first whose Type mentions "image"); a target inside the deck
  (`../media/...`) is read from the deck, a `file://` one from the VM. A
  slide that is not in the deck, has no such background, or no
  relationships file gives None (compare_images then scores 0); a deck
  that is not on the VM or not a zip, XML that does not parse, a target of
  another form or a member the deck lacks make OSWorld's getter raise
  (`GetterFailed` here).
"""

from __future__ import annotations

import io
import posixpath
import zipfile
import zlib
from typing import Any
from xml.etree import ElementTree

from pptx import Presentation
from pptx.util import Inches

from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, MetricFailed

PICTURE = 13
"""python-pptx's MSO_SHAPE_TYPE.PICTURE, as OSWorld compares shape_type."""
SLACK = Inches(0.5)
BACKGROUND = "{http://schemas.openxmlformats.org/presentationml/2006/main}bgPr"
BLIP = "{http://schemas.openxmlformats.org/drawingml/2006/main}blip"
EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
FILE_URL = "file://"


def _first_slide(data: bytes | None, which: str) -> tuple[Any, Any]:
    """The deck (python-pptx's empty default for None, as OSWorld opens None) and its first slide."""
    metric = "check_image_stretch_and_center"
    try:
        deck = Presentation(None if data is None else io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - python-pptx raises many kinds on a broken file
        raise MetricFailed(f"{metric}: the {which} file is not a pptx deck ({type(exc).__name__}: {exc}; "
                           "OSWorld's function raises here)") from None
    if not len(deck.slides):
        raise MetricFailed(f"{metric}: the {which} deck has no slide (OSWorld's function raises here)")
    return deck, deck.slides[0]


def check_image_stretch_and_center(result: bytes | None, expected: bytes | None) -> float:
    gold_deck, gold_slide = _first_slide(expected, "expected")
    _, slide = _first_slide(result, "result")
    gold_pictures = [shape for shape in gold_slide.shapes if shape.shape_type == PICTURE]
    pictures = [shape for shape in slide.shapes if shape.shape_type == PICTURE]
    if not gold_pictures:
        return 0.0
    wanted = gold_pictures[0].image.blob
    found = None
    for picture in pictures:
        if picture.image.blob == wanted:
            found = picture
    if found is None:
        return 0.0
    width, height = gold_deck.slide_width, gold_deck.slide_height
    return float(abs(found.width - width) <= SLACK and abs(found.height - height) <= SLACK
                 and abs(found.left - (width - found.width) / 2) <= SLACK
                 and abs(found.top - (height - found.height) / 2) <= SLACK)


def _background_id(slide: bytes) -> str | None:
    for background in ElementTree.fromstring(slide).iter(BACKGROUND):
        blip = next(background.iter(BLIP), None)
        if blip is not None and EMBED in blip.attrib:
            return blip.attrib[EMBED]
    return None


def background_picture(deck: bytes, slide_index: int) -> bytes | str | None:
    """The background picture of slide `slide_index` (from 0): its bytes when the deck holds it, the VM
    path of a linked one, None when OSWorld's getter finds none; GetterFailed where that getter raises."""
    getter = "background_image_in_slide"
    try:
        with zipfile.ZipFile(io.BytesIO(deck)) as archive:
            names = archive.namelist()
            slide = f"ppt/slides/slide{slide_index + 1}.xml"
            if slide not in names:
                return None
            image_id = _background_id(archive.read(slide))
            relationships = f"ppt/slides/_rels/slide{slide_index + 1}.xml.rels"
            if image_id is None or relationships not in names:
                return None
            for relation in ElementTree.fromstring(archive.read(relationships)).findall(RELATIONSHIP):
                if "image" in relation.attrib["Type"] and relation.attrib["Id"] == image_id:
                    target = relation.attrib["Target"]
                    if target.startswith(".."):
                        member = posixpath.normpath(posixpath.join("ppt/slides", target)).replace("\\", "/")
                        return archive.read(member)
                    if not target.startswith(FILE_URL):
                        raise GetterFailed(f"{getter}: the background's target {target!r} is neither in the deck "
                                           "nor a file:// path (OSWorld's getter asserts it is)")
                    return target[len(FILE_URL):]
            return None
    except (zipfile.BadZipFile, ElementTree.ParseError, KeyError, EOFError, zlib.error) as exc:
        raise GetterFailed(f"{getter}: cannot read the deck's slide {slide_index + 1} "
                           f"({type(exc).__name__}: {exc}; OSWorld's getter raises here)") from None


async def _background_image_in_slide(episode: Episode, spec: dict[str, Any]) -> bytes | None:
    path = spec["ppt_file_path"]
    try:
        index = int(spec["slide_index"])
    except (TypeError, ValueError):
        raise GetterFailed(f"background_image_in_slide: slide_index {spec['slide_index']!r} is not a number") \
            from None
    deck = await episode.vm_file(path)
    if deck is None:
        raise GetterFailed(f"background_image_in_slide: {path} is not on the VM (OSWorld's getter raises opening it)")
    picture = background_picture(deck, index)
    return await episode.vm_file(picture) if isinstance(picture, str) else picture


SLIDE_IMAGE_METRICS = {"check_image_stretch_and_center": check_image_stretch_and_center}
SLIDE_IMAGE_GETTERS = {"background_image_in_slide": _background_image_in_slide}
