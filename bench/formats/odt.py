"""`check_highlighted_words` on the OpenDocument text files a Writer task saves, read with odfpy, as WAA's
and OSWorld's docs.py define it alike.

Both first compare the two documents' text as compare_docx_files does for
.odt files: each `text:p`'s text is its own text nodes and those directly
inside its `text:span` children (deeper markup, `text:s` spaces and tabs
are not read), judged with compare_docx_files' defaults
(paragraph_texts.same_texts). Then the result passes when no span of it uses an
automatic style any of whose properties has the background colour
#ffff00 (Writer's yellow highlight); another highlight colour passes.

A file odfpy cannot open scores 0. odfpy raises when asked for an attribute
an element cannot have (a style's child without a background colour, such
as a `style:map`), and so do the references: this raises `ReferenceRaises`.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from odf.element import Element
from odf.opendocument import OpenDocument, load
from odf.text import P, Span

from bench.formats.paragraph_texts import same_texts
from bench.formats.reference_raises import ReferenceRaises

__all__ = ["check_highlighted_words", "is_odt", "open_odt", "paragraph_texts"]

HIGHLIGHT = "#ffff00"


MIMETYPE = b"application/vnd.oasis.opendocument.text"


def is_odt(data: bytes) -> bool:
    """Whether the bytes are an OpenDocument text file, by the package's mimetype member."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            return package.read("mimetype").strip() == MIMETYPE
    except (zipfile.BadZipFile, KeyError):
        return False


def open_odt(data: bytes | None) -> OpenDocument | None:
    """The document, or None when there is none or odfpy cannot read it (the references score both 0)."""
    if data is None:
        return None
    try:
        return load(io.BytesIO(data))
    except Exception:  # noqa: BLE001 - odfpy raises many kinds on a broken file; the references catch them all
        return None


def paragraph_texts(document: OpenDocument) -> list[str]:
    texts = []
    for paragraph in document.getElementsByType(P):
        parts = []
        for node in paragraph.childNodes:
            if node.nodeType == node.TEXT_NODE:
                parts.append(node.data)
            elif node.nodeType == node.ELEMENT_NODE and node.tagName == "text:span":
                parts += [child.data for child in node.childNodes if child.nodeType == child.TEXT_NODE]
        texts.append("".join(parts))
    return texts


def _attribute(element: Element, name: str) -> Any:
    try:
        return element.getAttribute(name)
    except (AttributeError, ValueError) as exc:  # odfpy: an attribute the element cannot have, or no namespace
        raise ReferenceRaises(f"check_highlighted_words: odfpy cannot read `{name}` of {element}: {exc}") from None


def _yellow(style: Element) -> bool:
    """Whether one of the style's properties, read in order up to the first yellow one, is yellow."""
    return any(_attribute(child, "backgroundcolor") == HIGHLIGHT for child in style.childNodes)


def _highlighted(document: OpenDocument) -> bool:
    """The references read every automatic style for a span (so a later one can still raise) before it stops."""
    styles = document.automaticstyles.childNodes
    for span in document.getElementsByType(Span):
        name = span.getAttribute("stylename")
        if name and [style for style in styles if _attribute(style, "name") == name and _yellow(style)]:
            return True
    return False


def check_highlighted_words(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    mine, gold = open_odt(result), open_odt(expected)
    if mine is None or gold is None or not same_texts(paragraph_texts(mine), paragraph_texts(gold)):
        return 0.0
    return 0.0 if _highlighted(mine) else 1.0

