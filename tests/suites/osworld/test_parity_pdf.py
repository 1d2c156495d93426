"""troupe's PDF and archive metrics agree with OSWorld's own (metrics/chrome.py, pdf.py and vscode.py,
imported from ../shared/osworld/reference for tests only) on PDFs, pictures and archives built here:

- compare_pdfs: the same text in another file, a text file or a PDF named .txt or without a suffix, a page less, other text, lines joined or split, a file
  that is not a PDF, an empty one, a missing file on either side or both, lists of files (one unreadable,
  of other lengths, an empty expected list), options it does not take;
- check_pdf_pages: every relation, a PDF of none and of several pages, a damaged or missing file, a rule
  without its keys or with a relation operator lacks;
- compare_pdf_images: the same pictures, one saved again as a JPEG (within phash's 5 bits) or marked, the two swapped, one more,
  none on either side, pictures on two pages, a damaged or missing file;
- compare_zip_files: same members, one more or renamed, a byte changed, PDF members alike (another title)
  or not, a member PDF damaged, an archive that is not a zip, a missing one;
- compare_archive: zip and tar.gz archives of PDFs (file_type pdf) and of text files (the default,
  with compare_text_file's options), a `file_path` folder, other names, a folder among the files,
  a .txt among the PDFs, no files, a file_type troupe lacks, an archive that is not one or is named as
  another kind (shutil goes by the name), a missing one.

Prints the agreement per function."""

from __future__ import annotations

import contextlib

import pytest
from PIL import Image, ImageDraw

from bench.suites.osworld.archives import compare_archive, compare_zip_files
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.pdfs import check_pdf_pages, compare_pdf_images, compare_pdfs

from tests.osworld_reference import (FILE, REFERENCE, Case, Named, assert_agrees, chrome_pdfs, disagreements,
                                     metrics_package, pdf as pdf_module, report_parity, vscode)
from tests.task_files import encoded, pdf, picture, tar_gz, zip_of

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
PAGES = ("LLM Powered Autonomous Agents", "Planning and memory\nTools and action")
GOLD = pdf(*PAGES)


def P(data: bytes) -> Named:
    return Named(data, ".pdf")


@pytest.fixture(scope="module")
def chrome():
    return chrome_pdfs()


def test_compare_pdfs_agrees_with_osworlds_own(chrome, tmp_path, capsys):
    results = [GOLD, pdf(*PAGES, title="another"), pdf(PAGES[0]), pdf("Quite another document"),
               pdf("LLM Powered Autonomous Agents Planning and memory Tools and action"),
               pdf(PAGES[0], "Planning and\nmemory", "Tools and action"), pdf(), b"%PDF-1.4 broken", b"", b"plain text"]
    cases = ([C(P(result), P(GOLD)) for result in results]
             + [C(None, P(GOLD)), C(P(GOLD), None), C(None, None), C(P(pdf()), None),
                C([P(GOLD), P(b"junk")], [P(GOLD), P(GOLD)]), C([P(GOLD)], [P(GOLD), P(pdf(PAGES[0]))]),
                C([P(GOLD), P(GOLD), P(GOLD)], [P(GOLD)]), C([P(GOLD)], []), C(P(GOLD), [P(GOLD)]),
                C(None, [P(GOLD)]), C([P(GOLD)], P(GOLD)), C(P(GOLD), P(GOLD), ignore_case=True),
                C(Named(b"LLM Powered Autonomous Agents", ".txt"), P(pdf("LLM Powered Autonomous Agents"))),
                C(Named(GOLD, ".txt"), P(GOLD)), C(Named(GOLD, ""), P(GOLD))])
    assert_agrees("compare_pdfs", chrome.compare_pdfs, compare_pdfs, cases, tmp_path, capsys, suffix=".pdf")


def test_check_pdf_pages_agrees_with_osworlds_own(tmp_path, capsys):
    three = pdf("one", "two", "three")
    rules = [{"relation": relation, "ref_value": value} for relation in ("eq", "ne", "lt", "le", "gt", "ge")
             for value in (1, 3)]
    cases = ([C(FILE, data, rule) for data in (pdf("one"), three) for rule in rules]
             + [C(FILE, pdf(), {"relation": "eq", "ref_value": 1}), C(None, rules[0]), C(FILE, b"%PDF-1.4 broken", rules[0]),
                C(FILE, b"", rules[0]), C(FILE, three, {"relation": "eq"}), C(FILE, three, {"ref_value": 3}),
                C(FILE, three, {"relation": "almost", "ref_value": 3}), C(FILE, three, {"relation": "eq", "ref_value": "3"}),
                C(FILE, three, {"relation": "lt", "ref_value": "3"}), C(FILE, three, {"relation": "contains", "ref_value": 3})])
    assert_agrees("check_pdf_pages", pdf_module().check_pdf_pages, check_pdf_pages, cases, tmp_path, capsys,
                  suffix=".pdf")


def test_compare_pdf_images_agrees_with_osworlds_own(chrome, tmp_path, capsys):
    photo = picture(seed=1)
    red, blue = encoded(photo), encoded(photo.transpose(Image.Transpose.FLIP_TOP_BOTTOM))
    receipt = pdf("Receipt", images=(red, blue))
    reencoded = pdf("Receipt", images=(encoded(photo, "JPEG", quality=70), blue))
    bar = photo.copy()
    ImageDraw.Draw(bar).rectangle((0, 0, 32, 24), fill="white")
    marked = pdf("Receipt", images=(encoded(bar), blue))
    results = [receipt, pdf("Another text", images=(red, blue)), reencoded, marked, pdf("Receipt", images=(blue, red)),
               pdf("Receipt", images=(red,)), pdf("Receipt", images=(red, blue, red)), pdf("Receipt"),
               pdf("Receipt", "Page two", images=(red, blue)), b"%PDF-1.4 broken", b""]
    cases = ([C(FILE, result, FILE, receipt) for result in results]
             + [C(FILE, pdf("a"), FILE, pdf("b")), C(None, FILE, receipt), C(FILE, receipt, None),
                C(FILE, receipt, FILE, b"%PDF-1.4 broken"), C(FILE, receipt, FILE, receipt, threshold=1)])
    assert_agrees("compare_pdf_images", chrome.compare_pdf_images, compare_pdf_images, cases, tmp_path, capsys,
                  suffix=".pdf")


def test_compare_zip_files_agrees_with_osworlds_own(tmp_path, capsys, monkeypatch):
    members = {"essay.docx": b"PK\x03\x04 a document", "notes/readme.txt": b"read me\n"}
    gold = zip_of({**members, "essay.pdf": pdf("Recruitment and retention", "of health professionals")})
    cases = [C(FILE, result, FILE, gold) for result in (
        gold, zip_of({**members, "essay.pdf": pdf("Recruitment and retention", "of health professionals",
                                                  title="other")}),
        zip_of({**members, "essay.pdf": pdf("Recruitment and retention", "of health professionals.")}),
        zip_of({**members, "essay.pdf": pdf("Something else entirely")}),
        zip_of({**members, "essay.pdf": b"%PDF-1.4 broken"}),
        zip_of({**members, "essay.pdf": pdf("Recruitment and retention", "of health professionals"), "x.txt": b"x"}),
        zip_of({"essay.docx": members["essay.docx"], "notes/README.txt": b"read me\n",
                "essay.pdf": pdf("Recruitment and retention", "of health professionals")}),
        zip_of({**members, "notes/readme.txt": b"read me!\n",
                "essay.pdf": pdf("Recruitment and retention", "of health professionals")}),
        zip_of({}), b"not a zip", b"")]
    cases += [C(None, FILE, gold), C(FILE, gold, None), C(FILE, zip_of({}), FILE, zip_of({}))]
    monkeypatch.chdir(tmp_path)  # OSWorld's function writes temp.pdf where it runs
    assert_agrees("compare_zip_files", vscode().compare_zip_files, compare_zip_files, cases, tmp_path, capsys,
                  suffix=".zip")


def _archives(pack, suffix: str) -> list[Case]:
    """compare_archive's cases on archives `pack` makes (a dict of paths to bytes), named with `suffix`."""
    books = {f"book/part{n}.pdf": pdf(f"Chapter {n}", f"Page two of {n}") for n in (1, 2)}
    gold = pack(books)

    def A(files: dict[str, bytes]) -> Named:
        return Named(pack(files), suffix)

    texts = {"lecture/a.txt": b"Week 0\nScratch\n", "lecture/b.txt": b"Week 1\tC\n"}
    text_gold = Named(pack(texts), suffix)
    return [
        C(A(books), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A({**books, "book/part2.pdf": pdf("Chapter 2", "Page two of 2!")}), Named(gold, suffix),
          file_type="pdf", file_path="book"),
        C(A({**books, "book/part2.pdf": pdf("Another book")}), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A({**books, "book/part3.pdf": pdf("More")}), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A({"book/part1.pdf": books["book/part1.pdf"], "book/Part2.pdf": books["book/part2.pdf"]}),
          Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A({**books, "book/part2.pdf": b"%PDF-1.4 broken"}), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A(books), Named(gold, suffix), file_type="pdf"),
        C(A(books), Named(gold, suffix), file_type="pdf", file_path="nowhere"),
        C(A(books), Named(gold, suffix), file_type="pdf", file_path="book", ignore_case=True),
        C(A({**books, "book/part3.pdf": pdf("More")}), Named(gold, suffix), file_type="docx", file_path="book"),
        C(A(books), Named(gold, suffix), file_type="docx", file_path="book"),
        C(A({"book/a.txt": b"Chapter 1"}), A({"book/a.txt": b"Chapter 1"}), file_type="pdf", file_path="book"),
        C(A({"book/sub/x.pdf": GOLD, "book/y.pdf": GOLD}), A({"book/sub/x.pdf": GOLD, "book/y.pdf": GOLD}),
          file_type="pdf", file_path="book"),
        C(A({"book/a.pdf": b""}), A({"book/a.pdf": b""}), file_type="pdf", file_path="book"),
        C(A({"book/sub/x.txt": b"x"}), A({"book/sub/x.txt": b"x"}), file_path="book"),
        C(A({"book/sub/x.txt": b"x"}), A({"book/sub/x.txt": b"x"}), file_type="pdf", file_path="book/sub/x.txt"),
        C(A(texts), text_gold), C(A(texts), text_gold, file_path="lecture"),
        C(A({**texts, "lecture/b.txt": b"week 1 c"}), text_gold, file_path="lecture"),
        C(A({**texts, "lecture/b.txt": b"week 1 c"}), text_gold, file_path="lecture", ignore_blanks=True,
          ignore_case=True),
        C(A({**texts, "lecture/b.txt": b"Week 1\tC"}), text_gold, file_path="lecture", ignore_blanks=True),
        C(A({**texts, "lecture/b.txt": b"\xff\xfe"}), text_gold, file_path="lecture"),
        C(A({}), A({}), file_type="pdf"),
        C(None, Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A(books), None, file_type="pdf", file_path="book"),
        C(Named(b"not an archive", suffix), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(Named(gold, ".rar"), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(Named(gold, ".zip" if suffix != ".zip" else ".tar.gz"), Named(gold, suffix), file_type="pdf",
          file_path="book"),
        C(Named(gold, ".tar" if suffix != ".zip" else ".zip"), Named(gold, suffix), file_type="pdf", file_path="book"),
        C(A(books), Named(b"", suffix), file_type="pdf", file_path="book"),
    ]


def test_an_archive_that_carries_no_name_is_told_a_zip_or_a_tar_by_its_bytes():
    books = {"book/a.pdf": GOLD}
    assert compare_archive(zip_of(books), tar_gz(books), file_type="pdf", file_path="book") == 1.0
    with pytest.raises(MetricFailed, match="neither a zip nor a tar"):
        compare_archive(b"not an archive", zip_of(books), file_type="pdf", file_path="book")


def test_compare_archive_agrees_with_osworlds_own(chrome, tmp_path, capsys):
    """A tar.gz's folders come from the paths of its files, as `tar -zcf` writes them with `*.pdf`."""
    cases = {"zip": _archives(zip_of, ".zip"), "tar.gz": _archives(tar_gz, ".tar.gz")}
    found, total = [], 0
    with metrics_package(), contextlib.chdir(tmp_path):
        for kind, group in cases.items():
            folder = tmp_path / kind
            folder.mkdir()
            found += disagreements(chrome.compare_archive, compare_archive, group, folder)
            total += len(group)
    report_parity(capsys, "compare_archive", total, found)
