"""troupe's Writer metrics agree with OSWorld's own (metrics/docs.py, imported from
../shared/osworld/reference for tests only) on .docx files built to sit on their edges: whitespace and
blank paragraphs, case, order, paragraphs split or joined, every option alone and together (both
fuzzy_match branches, delete_empty_lines after a sort), documents without paragraphs, a file that is not
a document, a missing file. Prints the agreement per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld.writer import compare_docx_files

from tests.task_files import document
from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, docs

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")


TEXT = ("Cocoa and chocolate", "Flavonoids: implications", "for cardiovascular health.")
GOLD = document(*TEXT)
C = Case
OPTIONS = [{}, {"ignore_blanks": False}, {"ignore_case": True}, {"ignore_order": True}, {"content_only": True},
           {"fuzzy_match": True}, {"fuzzy_match": True, "ignore_blanks": False}, {"delete_empty_lines": True},
           {"ignore_blanks": False, "delete_empty_lines": True},
           {"ignore_blanks": True, "ignore_order": True, "content_only": True, "delete_empty_lines": True},
           {"ignore_case": True, "ignore_blanks": False, "fuzzy_match": True}]
RESULTS = [GOLD, document(*TEXT[::-1]), document(*(t.upper() for t in TEXT)), document("  ".join(TEXT)),
           document(TEXT[0], "", TEXT[1], "   ", TEXT[2]), document(TEXT[0] + "  ", "\t" + TEXT[1], TEXT[2]),
           document(*TEXT[:2]), document("Cocoa and chocolat", "Flavonoids: implication", "for cardiovascular health"),
           document()]
CASES = ([C(FILE, result, FILE, GOLD, **options) for result in RESULTS for options in OPTIONS]
         + [C(FILE, document(), FILE, document(), **options) for options in OPTIONS]
         + [C(FILE, b"not a document", FILE, GOLD), C(FILE, GOLD, FILE, b"PK\x03\x04 broken"),
            C(None, FILE, GOLD), C(FILE, GOLD, None), C(FILE, b"", FILE, GOLD)])


def test_compare_docx_files_agrees_with_osworlds_own(tmp_path, capsys):
    assert_agrees("compare_docx_files", docs().compare_docx_files, compare_docx_files, CASES, tmp_path, capsys,
                  suffix=".docx")
