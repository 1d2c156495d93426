"""The `audio_in_slide` getter: the sound a pptx slide plays, as OSWorld's getter finds it.

The deck at `ppt_file_path` is read through /file; in the relationships of
slide `slide_index` (0 for the first: ppt/slides/_rels/slide1.xml.rels) the
first relationship whose Type mentions "audio" names the sound. A target
inside the deck ("../media/media1.mp3", resolved against ppt/slides) is read
from the deck; a linked one ("file:///home/user/Desktop/a.mp3") is read
from the VM at the path after "file://", None when the VM has no such file.
A slide without relationships or without an audio one gives None (the
metric then scores 0).

Where OSWorld's getter raises, this is an evaluation error (GetterFailed):
no deck at the path, a deck that is not a zip or whose relationships are
not XML, a target inside the deck that it does not hold, or a target that
is neither inside it nor a file:// address.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from typing import Any
from xml.etree import ElementTree

from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed

RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"


def _audio_target(deck: zipfile.ZipFile, slide: int) -> str | None:
    rels = f"ppt/slides/_rels/slide{slide + 1}.xml.rels"
    if rels not in deck.namelist():
        return None
    for relationship in ElementTree.fromstring(deck.read(rels)).findall(RELATIONSHIPS):
        if "audio" in relationship.attrib["Type"]:
            return relationship.attrib["Target"]
    return None


async def _audio_in_slide(episode: Episode, spec: dict[str, Any]) -> bytes | None:
    path, slide = spec["ppt_file_path"], int(spec["slide_index"])
    data = await episode.vm_file(path)
    if data is None:
        raise GetterFailed(f"audio_in_slide: no deck at {path} (OSWorld's getter raises opening it)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as deck:
            target = _audio_target(deck, slide)
            if target is None or not target.startswith(".."):
                linked = target
            else:
                return deck.read(posixpath.normpath(posixpath.join("ppt/slides", target)))
    except (zipfile.BadZipFile, ElementTree.ParseError, KeyError) as exc:
        raise GetterFailed(f"audio_in_slide: cannot read slide {slide}'s audio from {path} ({exc!r}; "
                           "OSWorld's getter raises here)") from None
    if linked is None:
        return None
    if not linked.startswith("file://"):
        raise GetterFailed(f"audio_in_slide: slide {slide}'s audio target {linked!r} is neither inside the deck "
                           "nor a file:// address (OSWorld's getter asserts one of those)")
    return await episode.vm_file(linked[len("file://"):])


SLIDE_AUDIO_GETTERS = {"audio_in_slide": _audio_in_slide}
