"""LibreOffice Writer's documents as OSWorld's docs.py metrics read them.

- `compare_docx_files`: the two .docx files' paragraph texts (python-docx's
  `paragraph.text`), judged as `bench.formats.paragraph_texts` says, with
  OSWorld's options (`ignore_blanks`, `ignore_case`, `ignore_order`,
  `content_only`, `fuzzy_match`, `delete_empty_lines`). A missing file, or
  one python-docx cannot open, scores 0. OSWorld picks the reader by the
  files' names; every task that uses it names .docx files, and so this reads
  .docx only (OSWorld's .odt branch is not here).
"""

from __future__ import annotations

import io
from typing import Any

import docx

from bench.formats.paragraph_texts import text_score

OPTIONS = ("ignore_blanks", "ignore_case", "ignore_order", "content_only", "fuzzy_match", "delete_empty_lines")


def _paragraphs(data: bytes) -> list[str] | None:
    try:
        return [paragraph.text for paragraph in docx.Document(io.BytesIO(data)).paragraphs]
    except Exception:  # noqa: BLE001 - python-docx raises many kinds on a broken file; OSWorld catches them all
        return None


def compare_docx_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    first, second = _paragraphs(result), _paragraphs(expected)
    if first is None or second is None:
        return 0.0
    return text_score(first, second, **{name: options.get(name, name == "ignore_blanks") for name in OPTIONS})


WRITER_METRICS = {"compare_docx_files": compare_docx_files}
