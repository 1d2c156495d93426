"""A text file as WAA's and OSWorld's metrics read it, and `compare_text_file`'s judgement of two.

- `text_mode`: the bytes as Python's `open(path).read()` gives them on the
  references' machines: UTF-8 (UnicodeDecodeError otherwise), universal
  newlines (CRLF and a lone CR are "\\n");
- `same_text`: both references' compare_text_file: equal texts score 1, else
  0; `ignore_blanks` makes tabs and newlines spaces, strips the ends and makes
  every run of whitespace one space; `ignore_case` lowercases.
"""

from __future__ import annotations

import io
import re

__all__ = ["same_text", "text_mode"]


def text_mode(data: bytes | str, encoding: str = "utf-8") -> str:
    raw = data.encode() if isinstance(data, str) else data
    return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding).read()


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[\t\n]", " ", text).strip())


def same_text(mine: str, gold: str, ignore_blanks: bool = False, ignore_case: bool = False) -> float:
    if ignore_blanks:
        mine, gold = _squeeze(mine), _squeeze(gold)
    if ignore_case:
        mine, gold = mine.lower(), gold.lower()
    return float(mine == gold)
