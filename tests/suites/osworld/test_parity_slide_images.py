"""troupe's pictures-in-a-deck functions agree with OSWorld's own, imported from ../shared/osworld/reference
for tests only: check_image_stretch_and_center (metrics/slides.py, with python-pptx) on decks built here
with a picture placed on the cover slide (covering it, within and beyond half an inch, off centre, another
picture, two copies, no picture, no deck); the background_image_in_slide getter (getters/impress.py) and
the vm_wallpaper getter (getters/info.py), troupe's reading the deck or picture from a stand-in of
OSWorld's server over a real socket, OSWorld's from an env whose controller returns it. Prints the
agreement per function."""

from __future__ import annotations

import functools
import io
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from pptx import Presentation
from pptx.util import Emu, Inches

from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.metrics import METRICS

from tests.osworld_reference import (FILE, REFERENCE, Case, assert_agrees, impress_getters, info_getters, report_parity,
                                     slides_pptx)
from tests.osworld_servers import getter_outcome, osworld_vm
from tests.task_files import encoded, picture
from tests.waa_servers import StandIn

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

PHOTO, OTHER = encoded(picture()), encoded(picture(seed=9).rotate(90))
WIDTH, HEIGHT = Inches(10), Inches(7.5)
"""python-pptx's default slide size."""

Placed = tuple[bytes, int, int, int, int]
"""A picture and where it sits: left, top, width, height in EMU."""


def deck(*slides: list[Placed]) -> bytes:
    """A .pptx with one blank slide per list, each picture placed as given."""
    built = Presentation()
    for placed in slides:
        slide = built.slides.add_slide(built.slide_layouts[6])
        for data, left, top, width, height in placed:
            slide.shapes.add_picture(io.BytesIO(data), Emu(left), Emu(top), Emu(width), Emu(height))
    out = io.BytesIO()
    built.save(out)
    return out.getvalue()


def inset(data: bytes, margin: float, shift: float = 0.0) -> Placed:
    """`data` covering the slide but `margin` inches on each side, moved `shift` inches right."""
    return data, Inches(margin + shift), Inches(margin), WIDTH - Inches(2 * margin), HEIGHT - Inches(2 * margin)


ORIGINAL = deck([(PHOTO, Inches(1), Inches(1), Inches(3), Inches(2))])
C = Case
STRETCH_CASES = [
    C(FILE, deck([inset(PHOTO, 0)]), FILE, ORIGINAL), C(FILE, deck([inset(PHOTO, 0.2)]), FILE, ORIGINAL),
    C(FILE, deck([inset(PHOTO, 0.25)]), FILE, ORIGINAL),  # exactly half an inch short: not beyond
    C(FILE, deck([inset(PHOTO, 0.3)]), FILE, ORIGINAL), C(FILE, deck([inset(PHOTO, 0, shift=0.6)]), FILE, ORIGINAL),
    C(FILE, deck([inset(PHOTO, 0, shift=0.4)]), FILE, ORIGINAL), C(FILE, deck([inset(OTHER, 0)]), FILE, ORIGINAL),
    C(FILE, ORIGINAL, FILE, ORIGINAL), C(FILE, deck([inset(PHOTO, 0)]), FILE, deck([])),
    C(FILE, deck([inset(PHOTO, 0), (PHOTO, 0, 0, Inches(1), Inches(1))]), FILE, ORIGINAL),  # the last copy counts
    C(FILE, deck([(PHOTO, 0, 0, Inches(1), Inches(1)), inset(PHOTO, 0)]), FILE, ORIGINAL),
    C(FILE, deck([], [inset(PHOTO, 0)]), FILE, ORIGINAL), C(FILE, deck([inset(OTHER, 0), inset(PHOTO, 0.1)]), FILE,
                                                            deck([(PHOTO, 0, 0, 9, 9), (OTHER, 0, 0, 9, 9)])),
    C(None, FILE, ORIGINAL), C(FILE, ORIGINAL, None), C(FILE, b"not a deck", FILE, ORIGINAL), C(FILE, deck(), FILE,
                                                                                                ORIGINAL),
]


def test_troupes_check_image_stretch_and_center_agrees_with_osworlds(tmp_path, capsys):
    assert_agrees("check_image_stretch_and_center", slides_pptx().check_image_stretch_and_center,
                  METRICS["check_image_stretch_and_center"], STRETCH_CASES, tmp_path, capsys, suffix=".pptx")


IMAGE_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
BLIP_FILL = '<a:blipFill><a:blip r:embed="rIdBg"/><a:stretch><a:fillRect/></a:stretch></a:blipFill>'
SOLID = '<a:solidFill><a:srgbClr val="00A933"/></a:solidFill>'
DECK = "/home/user/Desktop/Robotic_Workshop_Infographics.pptx"
LINKED = "/home/user/Pictures/landscape.png"


def background_deck(fill: str = BLIP_FILL, target: str | None = "../media/bg.png", slide: int = 2,
                    media: dict[str, bytes] | None = None, background: str | None = None) -> bytes:
    """Two blank slides, slide `slide` with a background of `fill` (or the `background` element given) and
    a relationship rIdBg to `target` (none when None), the deck holding `media`."""
    media = {"ppt/media/bg.png": PHOTO} if media is None else media
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(deck([], [], [(OTHER, 0, 0, 9, 9)]))) as source, \
            zipfile.ZipFile(out, "w") as written:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == f"ppt/slides/slide{slide}.xml":
                element = background or f"<p:bg><p:bgPr>{fill}<a:effectLst/></p:bgPr></p:bg>"
                data = data.replace(b"<p:cSld>", f"<p:cSld>{element}".encode())
            if item.filename == f"ppt/slides/_rels/slide{slide}.xml.rels" and target is not None:
                mode = ' TargetMode="External"' if target.startswith("file:") else ""
                data = data.replace(b"</Relationships>", f'<Relationship Id="rIdBg" Type="{IMAGE_REL}" '
                                                         f'Target="{target}"{mode}/></Relationships>'.encode())
            written.writestr(item, data)
        for name, data in media.items():
            written.writestr(name, data)
    return out.getvalue()


BACKGROUND_CASES = [
    ("embedded", background_deck(), {}, 1), ("other-slide", background_deck(), {}, 0),
    ("third-slide-has-a-picture-not-a-background", background_deck(), {}, 2),
    ("no-such-slide", background_deck(), {}, 7),
    ("index-as-text", background_deck(), {}, "1"), ("solid-fill", background_deck(SOLID, target=None), {}, 1),
    ("blip-without-embed", background_deck('<a:blipFill><a:blip/></a:blipFill>'), {}, 1),
    ("theme-background", background_deck(background='<p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef>'
                                                     '</p:bg>'), {}, 1),
    ("embed-without-relationship", background_deck(target=None), {}, 1),
    ("linked", background_deck(target=f"file://{LINKED}", media={}), {LINKED: OTHER}, 1),
    ("linked-missing", background_deck(target=f"file://{LINKED}", media={}), {}, 1),
    ("relative", background_deck(target="media/bg.png"), {}, 1),
    ("embedded-missing", background_deck(media={}), {}, 1),
    ("not-a-deck", b"PK not a zip", {}, 1), ("no-deck", None, {}, 1),
]


@functools.cache
def reference_getters() -> object:
    return impress_getters()


def theirs_background(data: bytes | None, vm: dict[str, bytes], index: object, folder: Path) -> object:
    files = {**vm, **({} if data is None else {DECK: data})}
    env = SimpleNamespace(controller=SimpleNamespace(get_file=files.get), cache_dir=str(folder))
    config = {"ppt_file_path": DECK, "slide_index": index, "dest": "landscape.png"}
    try:
        found = reference_getters().get_background_image_in_slide(env, config)
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"
    return None if found is None else Path(found).read_bytes()


async def ours(server: StandIn, spec: dict) -> object:
    return await getter_outcome(server.url, spec)


@pytest.mark.anyio
async def test_troupes_background_image_in_slide_agrees_with_osworlds(tmp_path, capsys):
    differences, behaviour = [], osworld_vm()
    with StandIn(behaviour) as server:
        for number, (name, data, vm, index) in enumerate(BACKGROUND_CASES):
            folder = tmp_path / str(number)
            folder.mkdir()
            behaviour.files = {**vm, **({} if data is None else {DECK: data})}
            mine = await ours(server, {"type": "background_image_in_slide", "ppt_file_path": DECK,
                                       "slide_index": index, "dest": "landscape.png"})
            reference = theirs_background(data, vm, index, folder)
            if mine != reference:
                differences.append((name, reference, mine))
    report_parity(capsys, "background_image_in_slide", len(BACKGROUND_CASES), differences, against="OSWorld's getter")


WALLPAPERS = [(200, PHOTO), (404, b"Wallpaper file not found"), (200, b""), (500, b"boom")]


@pytest.mark.anyio
async def test_troupes_vm_wallpaper_agrees_with_osworlds_and_an_unread_one_leaves_compare_images_no_score(tmp_path,
                                                                                                         capsys):
    differences, behaviour = [], osworld_vm()
    with StandIn(behaviour) as server:
        for number, (status, body) in enumerate(WALLPAPERS):
            behaviour.refusing["/wallpaper"] = (status, body)
            mine = await ours(server, {"type": "vm_wallpaper", "dest": "wallpaper.png"})
            content = body if status == 200 else None  # OSWorld's controller: the body of a 200, else None
            env = SimpleNamespace(controller=SimpleNamespace(get_vm_wallpaper=lambda: content),
                                  cache_dir=str(tmp_path))
            reference = Path(info_getters().get_vm_wallpaper(env, {"dest": f"wallpaper{number}.png"})).read_bytes()
            if mine != reference:
                differences.append((status, body, reference, mine))
            if not mine:
                with pytest.raises(MetricFailed, match="Pillow cannot read"):
                    METRICS["compare_images"](mine, PHOTO)
    report_parity(capsys, "vm_wallpaper", len(WALLPAPERS), differences, against="OSWorld's getter")
