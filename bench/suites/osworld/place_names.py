"""Place names the agent wrote into a document or a sheet, as OSWorld's metrics match them against
the task's answers (its general.py `fuzzy_place_math` and table.py `compare_conference_city_in_order`).

- `fuzzy_place_math`: the .docx's paragraphs split into words at whitespace;
  each word's best rapidfuzz `fuzz.ratio` (over 100) against the `expected`
  answers; there must be exactly three words, and the score is their mean.
  A missing file scores 0; one python-docx cannot open raises, as there;
- `compare_conference_city_in_order`: the active sheet's C2:C22, as
  openpyxl reads the .xlsx (a formula as its text), in order against
  `expected`, an answer or a list of alternatives per row: each answer,
  lowercased, its accents dropped and every run of other than a-z and 0-9
  made one space, must be within the cell's value normalized the same way
  (an empty cell is ""). A row that does not match, fewer answers than rows
  or an answer of another kind score 0; a file openpyxl cannot open (or none)
  raises, as there.
"""

from __future__ import annotations

import io
import re
import unicodedata
from typing import Any

import docx
import openpyxl
from rapidfuzz import fuzz

from bench.suites.osworld.errors import MetricFailed

CITY_CELLS = "C2:C22"
WORDS = 3
"""How many words fuzzy_place_math's answer document must hold."""


def _expected(rules: Any, func: str) -> Any:
    if not isinstance(rules, dict) or "expected" not in rules:
        raise MetricFailed(f"{func}: expected rules with `expected`, got {rules!r} (OSWorld's function raises here)")
    return rules["expected"]


def fuzzy_place_math(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    answers = _expected(rules, "fuzzy_place_math")
    try:
        paragraphs = docx.Document(io.BytesIO(result)).paragraphs
    except Exception as exc:  # noqa: BLE001 - python-docx raises many kinds on a broken file
        raise MetricFailed(f"fuzzy_place_math: the file is not a .docx document ({type(exc).__name__}: {exc}) "
                           "(OSWorld's function raises here)") from None
    words = [word for paragraph in paragraphs for word in paragraph.text.split()]
    scores = [max([0.0, *(fuzz.ratio(word, answer) / 100 for answer in answers)]) for word in words]
    return sum(scores) / WORDS if len(scores) == WORDS else 0.0


def _normalized_city(value: Any) -> str:
    if value is None:
        return ""
    decomposed = unicodedata.normalize("NFKD", value if isinstance(value, str) else str(value))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"[^a-z0-9]+", " ", plain.lower()).strip()


def _matches(value: Any, answer: Any) -> bool:
    if isinstance(answer, str):
        answer = [answer]
    elif not isinstance(answer, list):
        raise TypeError(f"an expected city must be a string or a list of strings, got {answer!r}")
    actual = _normalized_city(value)
    return any((candidate := _normalized_city(option)) and candidate in actual for option in answer)


def compare_conference_city_in_order(result: bytes | None, rules: Any, **options: Any) -> float:
    answers = _expected(rules, "compare_conference_city_in_order")
    if result is None:
        raise MetricFailed("compare_conference_city_in_order: no file was read (OSWorld's openpyxl raises here)")
    try:
        sheet = openpyxl.load_workbook(io.BytesIO(result)).active
        cities = [cell.value for row in sheet[CITY_CELLS] for cell in row]
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds on a broken file
        raise MetricFailed(f"compare_conference_city_in_order: the file is not an xlsx workbook "
                           f"({type(exc).__name__}: {exc}) (OSWorld's function raises here)") from None
    try:
        return float(all(_matches(city, answers[index]) for index, city in enumerate(cities)))
    except Exception:  # noqa: BLE001 - OSWorld's function scores any failure while matching 0
        return 0.0


PLACE_METRICS = {"fuzzy_place_math": fuzzy_place_math,
                 "compare_conference_city_in_order": compare_conference_city_in_order}
