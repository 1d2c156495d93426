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
    """`messages` with each inlined image replaced by its `image_reference`, wherever it is nested
    (a chat-completions content part, an image block inside an Anthropic tool result, a Responses
    API input image or computer-call screenshot); each image's bytes go into `images`, by sha256,
    when it is given."""
    return [_without(message, images) for message in messages]


def _without(value: Any, images: dict[str, bytes] | None) -> Any:
    if isinstance(value, list):
        return [_without(item, images) for item in value]
    if not isinstance(value, dict):
        return value
    data = _inlined(value)
    if data is None:
        return {key: _without(item, images) for key, item in value.items()}
    try:
        image = base64.b64decode(data, validate=True)
    except binascii.Error:
        return {"type": "image", "unreadable": data[:64]}
    reference = image_reference(image)
    if images is not None:
        images[reference["sha256"]] = image
    return reference


def _inlined(part: dict[str, Any]) -> str | None:
    """The base64 data of an image part, in any of the APIs' shapes; None for anything else (an
    image the server fetches by URL: the URL is the reference)."""
    kind = part.get("type")
    if kind == "image" and isinstance(part.get("source"), dict) and part["source"].get("type") == "base64":
        return str(part["source"].get("data", ""))
    if kind == "image_url":
        url = (part.get("image_url") or {}).get("url", "")
    elif kind in ("input_image", "computer_screenshot"):
        url = part.get("image_url", "")
    else:
        return None
    url = str(url)
    head, comma, data = url.partition(",")
    return data if url.startswith("data:") and comma and head.endswith(";base64") else None
