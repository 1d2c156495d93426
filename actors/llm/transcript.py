"""A model call as the episode's transcript keeps it: the request without its pixels.

A screenshot sent to a model is already in the episode folder (step-NNN.png),
so the transcript names it instead of holding it again: each image part
becomes its sha256 and size here, in the caller's process, and the run
folder resolves the hash to the file (`actors.transcript`). A call record is
then a few kilobytes of text however many screenshots the prompt held, and
the model's transcript never carries a key (headers are not kept at all).
The bytes go along beside the call (`ModelCall.images`), so the run folder
can keep a picture no screenshot file holds (a set-of-marks screenshot, one
scaled for the model) as a file of its own.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

__all__ = ["image_reference", "without_images"]


def image_reference(image: bytes) -> dict[str, Any]:
    """What a transcript keeps of an image: enough to find the file that holds it."""
    return {"type": "image", "sha256": hashlib.sha256(image).hexdigest(), "bytes": len(image)}


def without_images(messages: list[dict[str, Any]], images: dict[str, bytes] | None = None) -> list[dict[str, Any]]:
    """`messages` with each data-URL image part replaced by its `image_reference`; each image's
    bytes go into `images`, by sha256, when it is given."""
    return [{**message, "content": [_part(part, images) for part in message["content"]]}
            if isinstance(message.get("content"), list) else message for message in messages]


def _part(part: Any, images: dict[str, bytes] | None) -> Any:
    if not isinstance(part, dict) or part.get("type") != "image_url":
        return part
    url = str((part.get("image_url") or {}).get("url", ""))
    _, comma, data = url.partition(",")
    if not url.startswith("data:") or not comma:
        return part  # an image the server fetches by URL: the URL is the reference
    try:
        image = base64.b64decode(data, validate=True)
    except binascii.Error:
        return {"type": "image", "unreadable": url[:64]}
    reference = image_reference(image)
    if images is not None:
        images[reference["sha256"]] = image
    return reference
