"""URLs compared as WAA compares them (its metrics' `compare_urls` and `are_lists_equal`).

Both sides are parsed, a missing scheme reads as http, scheme and host are
lowercased, every "www." in the host is dropped and a bare "/" path is
empty; query and fragment stay. A string without "//" has no host for the
parser, so a cookie domain such as ".amazon.com" is compared whole, as a
path: only an identical domain matches it. None equals only None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlparse, urlunparse


def _normalized(url: str) -> str:
    parts = urlparse(url)
    return urlunparse(parts._replace(scheme=(parts.scheme or "http").lower(),
                                     netloc=parts.netloc.lower().replace("www.", ""),
                                     path="" if parts.path == "/" else parts.path))


def same_url(first: str | None, second: str | None) -> bool:
    if first is None or second is None:
        return first == second
    return _normalized(first) == _normalized(second)


def same_items(wanted: Sequence[Any], found: Sequence[Any], same: Callable[[Any, Any], bool] = same_url) -> bool:
    """As many items, and each wanted one matches some found one (WAA's are_lists_equal: items are
    not paired off, so wanted [a, a] equals found [a, b] whatever b is)."""
    return len(wanted) == len(found) and all(any(same(w, f) for f in found) for w in wanted)
