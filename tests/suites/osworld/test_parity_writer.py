"""troupe's Writer metrics agree with OSWorld's own (metrics/docs.py, imported from
../shared/osworld/reference for tests only) on .docx files built to sit on their edges: whitespace and
blank paragraphs, case, order, paragraphs split or joined, every option alone and together (both
fuzzy_match branches, delete_empty_lines after a sort), documents without paragraphs, a file that is not
a document, a missing file. compare_docx_files reads .odt files too: the same judgements on .odt files
(spans, links and `text:s` spaces, which its reader does not read). OSWorld's functions pick the reader by
the files' names, and troupe by the name a getter's value carries: files named as another kind, two
kinds, or named as the kind they are not. Prints the agreement per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld.writer import compare_docx_files, compare_docx_files_and_ignore_new_lines, compare_references

from tests import writer_files
from tests.task_files import document
from tests.osworld_reference import FILE, REFERENCE, Case, Named, assert_agrees, docs

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


def odt(*texts: str, **extras: bool) -> bytes:
    return writer_files.odt([(text, None) for text in texts], **extras)


ODT_GOLD = odt(*TEXT)
ODT_RESULTS = [ODT_GOLD, odt(*TEXT[::-1]), odt(*(t.upper() for t in TEXT)), odt("  ".join(TEXT)),
               odt(TEXT[0], "", TEXT[1], "   ", TEXT[2]), odt(*TEXT[:2]), odt(*TEXT, link=True), odt(*TEXT, spaced=True),
               writer_files.odt([(TEXT[0], "#ffff00"), (TEXT[1], None), (TEXT[2], None)]), odt()]
ODT_CASES = ([C(FILE, result, FILE, ODT_GOLD, **options) for result in ODT_RESULTS for options in OPTIONS]
             + [C(FILE, b"not a document", FILE, ODT_GOLD), C(FILE, ODT_GOLD, FILE, GOLD)])


def test_compare_docx_files_reads_odt_files_as_osworlds_own(tmp_path, capsys):
    outcomes = assert_agrees("compare_docx_files (.odt)", docs().compare_docx_files, compare_docx_files, ODT_CASES,
                             tmp_path, capsys, suffix=".odt")
    assert {0.0, 1.0} < outcomes, outcomes


def named(result: bytes, result_suffix: str, gold: bytes, gold_suffix: str, **options) -> Case:
    return C(Named(result, result_suffix), Named(gold, gold_suffix), **options)


NAMED = ([named(GOLD, ".docx", GOLD, ".docx"), named(ODT_GOLD, ".odt", ODT_GOLD, ".odt"),
          named(GOLD, ".docx", ODT_GOLD, ".odt"), named(ODT_GOLD, ".odt", GOLD, ".docx"),
          named(GOLD, ".odt", GOLD, ".odt"), named(ODT_GOLD, ".docx", ODT_GOLD, ".docx"),
          named(GOLD, ".doc", GOLD, ".doc"), named(GOLD, ".DOCX", GOLD, ".DOCX"), named(GOLD, ".docx", GOLD, ".doc"),
          named(ODT_GOLD, ".odt", odt(*TEXT[:2]), ".odt"), named(ODT_GOLD, ".odt", ODT_GOLD, ".odt", content_only=True)]
         + [named(result, ".odt", ODT_GOLD, ".odt", **options) for result in ODT_RESULTS[1:4] for options in OPTIONS[:6]])


@pytest.mark.parametrize("function", [compare_docx_files, compare_docx_files_and_ignore_new_lines,
                                      compare_references], ids=lambda function: function.__name__)
def test_the_reader_is_picked_by_the_files_names_as_osworlds(function, tmp_path, capsys):
    outcomes = assert_agrees(f"{function.__name__} (files by name)", getattr(docs(), function.__name__), function,
                             NAMED, tmp_path, capsys)
    assert {0.0, 1.0} <= outcomes, outcomes
