"""The one check of a presented token, for every troupe server that hands out power to its holder.

A node runs actors for whoever connects, the viewer shows a run's screens,
the WAA Linux server runs shell commands: each lets in only the holder of a
token, and each asks `token_matches`. The comparison takes constant time, so
how long a refusal takes says nothing about how much of a guess was right.
It compares bytes, because `hmac.compare_digest` raises on text with
non-ASCII characters, and a token is whatever text its owner chose.

A token travels in a header as its UTF-8 bytes. HTTP libraries (http.server,
httpx, websockets) write and read header values as Latin-1 text, so
`header_text` and `header_bytes` are the two directions of that one rule.
"""

from __future__ import annotations

import hmac

__all__ = ["header_bytes", "header_text", "token_matches"]


def token_matches(presented: str | bytes | None, expected: str) -> bool:
    """Whether `presented` is `expected`: text as its UTF-8 bytes, bytes as they are; None never matches."""
    if presented is None:
        return False
    if isinstance(presented, str):
        presented = presented.encode("utf-8", "surrogateescape")
    return hmac.compare_digest(presented, expected.encode("utf-8", "surrogateescape"))


def header_text(token: str) -> str:
    """`token` as a header value: its UTF-8 bytes, spelled as the Latin-1 text HTTP libraries write."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in token):
        raise ValueError("a token cannot contain control characters: it travels in an HTTP header")
    return token.encode("utf-8").decode("latin-1")


def header_bytes(value: str | None) -> bytes | None:
    """The bytes a header value arrived as (a server read them as Latin-1 text); None stays None."""
    return None if value is None else value.encode("latin-1", "replace")
