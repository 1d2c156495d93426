"""Metrics: a score from what the getters read, with the semantics of OSWorld's own functions.

Each takes the `result` value, then the `expected` value when the task has
an `expected` spec, then the task's `options`, as OSWorld's evaluate() calls
them. A file is its bytes (None when the getter got none); where OSWorld's
function opens a path, these read the bytes as Python's text mode reads a
file (UTF-8, universal newlines), so an empty file is still a file.

The simplest of OSWorld's general.py stand here (`exact_match`,
`match_in_list`, `is_in_list`, `literal_match`, `check_include_exclude`,
`file_contains`, `check_line_number`); the others, a module per family:

- files of any application: text_files.py (`compare_text_file`,
  `diff_text_file`, ...), csv_files.py, json_object.py, expectations.py
  (`check_list`, `check_csv`, `check_json`), sqlite_query.py,
  accessibility.py (`check_accessibility_tree`), place_names.py, pdfs.py,
  archives.py, epub.py, mp3_tags.py, html_files.py;
- the desktop: basic_os.py (`is_in_vm_clickboard`, `check_moved_jpgs`),
  gnome.py, desktop_shortcuts.py, thunderbird.py, thunderbird_folders.py,
  vscode.py and python_tests.py (`check_python_file_by_test_suite`);
- Chrome: chrome.py, chrome_tabs.py, chrome_pages.py, chrome_cookies.py,
  chrome_extensions.py;
- VLC: vlc.py, vlc_status.py, media.py (`compare_audios`, `compare_videos`);
- GIMP: gimp.py, image_similarity.py (`compare_images`, the structure
  checks), image_edits.py (the edits), image_text.py (`compare_image_text`,
  when easyocr is installed: `PYTHON_PACKAGES`);
- LibreOffice: tables.py (`compare_table`), writer.py (Writer's documents,
  writer_formatting.py's checks among them), impress.py, slides.py
  (`compare_pptx_files`), slide_design.py, slide_images.py.

`infeasible` is decided by the checker from the agent's last action.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from bench.formats.text_file import text_mode
from bench.suites.osworld.accessibility import ACCESSIBILITY_METRICS
from bench.suites.osworld.archives import ARCHIVE_METRICS
from bench.suites.osworld.basic_os import BASIC_OS_METRICS
from bench.suites.osworld.chrome import CHROME_METRICS, RULED as CHROME_RULED
from bench.suites.osworld.chrome_cookies import COOKIE_METRICS
from bench.suites.osworld.chrome_extensions import EXTENSION_METRICS
from bench.suites.osworld.chrome_pages import PAGE_METRICS
from bench.suites.osworld.chrome_tabs import TAB_METRICS
from bench.suites.osworld.csv_files import CSV_METRICS
from bench.suites.osworld.desktop_shortcuts import SHORTCUT_METRICS
from bench.suites.osworld.epub import EPUB_METRICS
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.expectations import EXPECTATION_METRICS
from bench.suites.osworld.gimp import GIMP_METRICS
from bench.suites.osworld.gnome import GNOME_METRICS
from bench.suites.osworld.html_files import HTML_METRICS
from bench.suites.osworld.image_edits import EDIT_METRICS
from bench.suites.osworld.image_similarity import SIMILARITY_METRICS
from bench.suites.osworld.image_text import IMAGE_TEXT_METRICS
from bench.suites.osworld.impress import IMPRESS_METRICS
from bench.suites.osworld.json_object import JSON_METRICS
from bench.suites.osworld.media import MEDIA_METRICS
from bench.suites.osworld.mp3_tags import MP3_METRICS
from bench.suites.osworld.pdfs import PDF_METRICS
from bench.suites.osworld.place_names import PLACE_METRICS
from bench.suites.osworld.python_tests import PYTHON_TEST_METRICS
from bench.suites.osworld.slide_design import SLIDE_DESIGN_METRICS
from bench.suites.osworld.slide_images import SLIDE_IMAGE_METRICS
from bench.suites.osworld.slides import SLIDES_METRICS
from bench.suites.osworld.sqlite_query import SQLITE_METRICS
from bench.suites.osworld.tables import RULES as TABLE_RULES, TABLE_METRICS
from bench.suites.osworld.text_files import TEXT_METRICS
from bench.suites.osworld.thunderbird import THUNDERBIRD_METRICS
from bench.suites.osworld.thunderbird_folders import THUNDERBIRD_FOLDER_METRICS
from bench.suites.osworld.vlc import VLC_METRICS
from bench.suites.osworld.vlc_status import VLC_STATUS_METRICS
from bench.suites.osworld.vscode import VSCODE_METRICS
from bench.suites.osworld.writer import WRITER_METRICS

Metric = Callable[..., float]
INFEASIBLE = "infeasible"


def _rule(rules: Any, key: str, metric: str) -> Any:
    if not isinstance(rules, dict) or key not in rules:
        raise MetricFailed(f"{metric}: expected rules with `{key}`, got {rules!r} (OSWorld's function raises here)")
    return rules[key]


def exact_match(result: Any, rules: Any, **options: Any) -> float:
    return float(result == _rule(rules, "expected", "exact_match"))


def match_in_list(result: Any, rules: Any, **options: Any) -> float:
    return float(result in _rule(rules, "expected", "match_in_list"))


def is_in_list(result: Any, rules: Any, **options: Any) -> float:
    return float(_rule(rules, "expected", "is_in_list") in result)


def literal_match(result: Any, expected: Any, **options: Any) -> float:
    kind, ignore_case = options.get("type", "str"), options.get("ignore_case", False)
    if kind == "str":
        mine, gold = str(result), str(expected)
        return float(mine.lower() == gold.lower() if ignore_case else mine == gold)
    if kind == "list":
        if not (isinstance(result, (list, tuple)) and isinstance(expected, (list, tuple))
                and len(result) == len(expected)):
            return 0.0
        fold = (lambda s: str(s).lower()) if ignore_case else str
        return float([fold(s) for s in result] == [fold(s) for s in expected])
    raise MetricFailed(f"literal_match: type {kind!r} is not supported (OSWorld's function raises here)")


def check_include_exclude(result: Any, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    include, exclude = rules.get("include", []), rules.get("exclude", [])
    return float(all(r in result for r in include) and all(r not in result for r in exclude))


def file_contains(result: bytes | None, rules: Any, **options: Any) -> float:
    """Every `expected` text is in the file; any failure to read it (or the rule) scores 0, as OSWorld's does."""
    if result is None:
        return 0.0
    try:
        content = text_mode(result)
        return float(all(wanted in content for wanted in rules["expected"]))
    except Exception:  # noqa: BLE001 - OSWorld's function catches everything here and scores 0
        return 0.0


_TIME = re.compile("([01]\\d|2[0-3]):[0-5]\\d:([0-5]\\d|60)")


def check_line_number(result: bytes | None, rules: Any, **options: Any) -> float:
    """The number of lines holding a time (hh:mm:ss) is `expected`; unreadable scores 0."""
    if result is None:
        return 0.0
    try:
        # the lines of a file read in text mode: universal newlines, then \n alone ends a line (not \f or \x1c)
        lines = sum(1 for line in text_mode(result).split("\n") if _TIME.search(line))
        return float(lines == int(rules["expected"]))
    except Exception:  # noqa: BLE001 - as OSWorld's
        return 0.0


METRICS: dict[str, Metric] = {
    "exact_match": exact_match,
    "match_in_list": match_in_list,
    "is_in_list": is_in_list,
    "literal_match": literal_match,
    "check_include_exclude": check_include_exclude,
    "file_contains": file_contains,
    "check_line_number": check_line_number,
    **CHROME_METRICS,
    **TAB_METRICS,
    **PAGE_METRICS,
    **COOKIE_METRICS,
    **EXTENSION_METRICS,
    **HTML_METRICS,
    **SHORTCUT_METRICS,
    **JSON_METRICS,
    **VLC_METRICS,
    **VLC_STATUS_METRICS,
    **MEDIA_METRICS,
    **GIMP_METRICS,
    **SIMILARITY_METRICS,
    **EDIT_METRICS,
    **IMPRESS_METRICS,
    **TABLE_METRICS,
    **CSV_METRICS,
    **WRITER_METRICS,
    **SLIDES_METRICS,
    **SLIDE_DESIGN_METRICS,
    **SLIDE_IMAGE_METRICS,
    **THUNDERBIRD_METRICS,
    **PDF_METRICS,
    **ARCHIVE_METRICS,
    **TEXT_METRICS,
    **BASIC_OS_METRICS,
    **PLACE_METRICS,
    **EPUB_METRICS,
    **MP3_METRICS,
    **EXPECTATION_METRICS,
    **SQLITE_METRICS,
    **ACCESSIBILITY_METRICS,
    **VSCODE_METRICS,
    **PYTHON_TEST_METRICS,
    **GNOME_METRICS,
    **THUNDERBIRD_FOLDER_METRICS,
    **IMAGE_TEXT_METRICS,
}

SUPPORTED_FUNCTIONS = frozenset(METRICS) | {INFEASIBLE}

RULED: dict[str, frozenset[str]] = {**CHROME_RULED}
"""Metrics whose expected rule's `type` names a check troupe has only some of."""
OPTION_RULED: dict[str, frozenset[str]] = {"compare_table": frozenset(TABLE_RULES)}
"""Metrics whose `options.rules` each name a check troupe has only some of."""


def unsupported_rules(func: str, expected: Any, options: Any) -> set[str]:
    """The rule types a task asks of `func` (in its expected rule or its options' rules) that troupe
    lacks, each as "func rule type"."""
    found = set()
    known = RULED.get(func)
    if known is not None and isinstance(expected, dict) and expected.get("type") == "rule":
        kind = (expected.get("rules") or {}).get("type")
        if kind not in known:
            found.add(f"{func} rule {kind}")
    known = OPTION_RULED.get(func)
    if known is not None and isinstance(options, dict):
        found |= {f"{func} rule {rule.get('type')}" for rule in options.get("rules", []) if rule.get("type") not in known}
    return found
