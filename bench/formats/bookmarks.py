"""Chrome's Bookmarks (its `roots`) as both references' `is_expected_bookmarks` reads the
`liked_authors_websites_urls` rule: the bookmark bar's first folder named "Liked Authors" holds links
to exactly one choice of the rule's URLs, one from each author's alternatives (a URL alone is the only
choice for its author); no such folder scores 0."""

from __future__ import annotations

from itertools import product
from typing import Any

LIKED_AUTHORS = "Liked Authors"


def liked_authors_score(bookmarks: Any, urls: Any) -> float:
    folder = next((item for item in bookmarks["bookmark_bar"]["children"]
                   if item["type"] == "folder" and item["name"] == LIKED_AUTHORS), None)
    if folder is None:
        return 0.0
    liked = {item["url"] for item in folder["children"] if item["type"] == "url"}
    choices = [[url] if isinstance(url, str) else url for url in urls]
    return float(any(set(choice) == liked for choice in product(*choices)))
