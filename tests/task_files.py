"""Files the OSWorld tests make in the formats its tasks name (the task files themselves live in a data set
this machine cannot reach): documents, workbooks, decks, PDFs, pictures, archives, a mail client's profile, a
browser extension's archive."""

from __future__ import annotations

import io
import tarfile
import zipfile

import docx
import numpy as np
import pymupdf
from openpyxl import Workbook
from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.dml.color import RGBColor


def document(*paragraphs: str) -> bytes:
    """A .docx of one paragraph per text."""
    written = docx.Document()
    for text in paragraphs:
        written.add_paragraph(text)
    out = io.BytesIO()
    written.save(out)
    return out.getvalue()


def xlsx(rows: list[list[object]]) -> bytes:
    """An .xlsx workbook of one sheet, named Sheet1 as LibreOffice names it, holding `rows`."""
    workbook = Workbook()
    workbook.active.title = "Sheet1"
    for row in rows:
        workbook.active.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def slides(*titles: str, background: str | None = None) -> bytes:
    """A .pptx of one title slide per text; the first slide's background a solid `background` (RRGGBB)."""
    deck = Presentation()
    for title in titles:
        deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = title
    if background is not None:
        fill = deck.slides[0].background.fill
        fill.solid()
        fill.fore_color.rgb = RGBColor.from_string(background)
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def tar_gz(files: dict[str, bytes]) -> bytes:
    """A .tar.gz holding `files` by their paths inside it."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return out.getvalue()


def picture(width: int = 64, height: int = 48, seed: int = 0) -> Image.Image:
    """A photo-like RGB picture: colour gradients, a few shapes and some grain; no symmetry, so it differs
    from its mirror image."""
    y, x = np.mgrid[0:height, 0:width]
    pixels = np.stack([x * 255 // max(width - 1, 1), y * 255 // max(height - 1, 1), (x + 2 * y) % 256], axis=2)
    grain = np.random.default_rng(seed).integers(-12, 13, pixels.shape)
    image = Image.fromarray(np.clip(pixels + grain, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    draw.rectangle((width // 10, height // 8, width // 3, height // 2), fill=(220, 40, 30))
    right, bottom = max(width // 2, width - 4), max(height // 2, height - 3)
    draw.ellipse((width // 2, height // 2, right, bottom), fill=(30, 60, 200))
    return image


def encoded(image: Image.Image, kind: str = "PNG", **options: object) -> bytes:
    """`image` saved in `kind` (PNG, JPEG, GIF, ...)."""
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def pdf(*pages: str, images: tuple[bytes, ...] = (), title: str = "report") -> bytes:
    """A PDF of one page per text (a text's lines as lines), with each picture of `images` drawn on
    the first page, as LibreOffice's export or a print to PDF leaves them."""
    written = pymupdf.open()
    written.set_metadata({"title": title})
    for text in pages or ("",):
        written.new_page().insert_text((72, 72), text, fontsize=12)
    for index, picture in enumerate(images):
        written[0].insert_image(pymupdf.Rect(72, 200 + 120 * index, 172, 300 + 120 * index), stream=picture)
    return written.tobytes()


def zip_of(files: dict[str, bytes]) -> bytes:
    """A .zip holding `files` by their paths inside it."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()
