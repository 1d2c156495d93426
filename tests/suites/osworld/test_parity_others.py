"""troupe's compare_epub and check_mp3_meta agree with OSWorld's own (metrics/others.py, with the
general.py and utils.py it imports, from ../shared/osworld/reference for tests only) on books and MP3s
built here:

- compare_epub: the same book, one whose identifier or navigation points differ (both left out), a
  chapter changed, line ends moved within a chapter's HTML, a chapter more or less, no table of contents,
  a result or expected file that is not a zip or is missing, a chapter in a folder, a table of contents
  that is not UTF-8, an empty chapter;
- check_mp3_meta: title and artist as the task asks, one wrong, an artist of two values, a tag the file
  lacks, a tag name EasyID3 does not know, `re`, `approx` and `ne` rules, a method OSWorld lacks (first,
  and after a rule that already failed), a file with no ID3 tag, a missing file.

Prints the agreement per function."""

from __future__ import annotations

import io

import pytest
from mutagen.easyid3 import EasyID3

from bench.suites.osworld.epub import compare_epub
from bench.suites.osworld.mp3_tags import check_mp3_meta

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, others
from tests.task_files import zip_of

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case


@pytest.fixture(scope="module")
def reference():
    return others()


def toc(*chapters: str, nav: str = "1") -> bytes:
    points = "".join(f'  <navPoint id="n{nav}-{i}"><text>{title}</text></navPoint>\n' for i, title in enumerate(chapters))
    return f'<?xml version="1.0"?>\n<ncx>\n <navMap>\n{points} </navMap>\n</ncx>\n'.encode()


def opf(identifier: str = "urn:uuid:1") -> bytes:
    return (f'<?xml version="1.0"?>\n<package>\n <metadata>\n  <dc:title>Pass Through</dc:title>\n'
            f'  <dc:identifier id="id">{identifier}</dc:identifier>\n </metadata>\n</package>\n').encode()


def chapter(*paragraphs: str, breaks: str = "\n") -> bytes:
    body = breaks.join(f"<p>{text}</p>" for text in paragraphs)
    return f"<html>{breaks}<head><title>Pass Through</title></head>{breaks}<body>{body}</body></html>".encode()


TEXT = ("It was late when the train came.", "Nobody got off.")
BOOK = {"toc.ncx": toc("One", "Two"), "content.opf": opf(), "ch1.html": chapter(*TEXT),
        "ch2.html": chapter("The second chapter.")}


def test_compare_epub_agrees_with_osworlds_own(reference, tmp_path, capsys):
    gold = zip_of(BOOK)
    results = [gold, zip_of({**BOOK, "content.opf": opf("urn:uuid:2")}), zip_of({**BOOK, "toc.ncx": toc("Uno", "Dos")}),
               zip_of({**BOOK, "ch1.html": chapter("It was early.", TEXT[1])}),
               zip_of({**BOOK, "ch1.html": chapter(*TEXT, breaks="\r\n")}),
               zip_of({**BOOK, "ch3.html": chapter("More.")}), zip_of({k: v for k, v in BOOK.items() if k != "ch2.html"}),
               zip_of({k: v for k, v in BOOK.items() if k != "toc.ncx"}), zip_of({"mimetype": b"application/epub+zip"}),
               b"not a zip", b"", zip_of({**BOOK, "OEBPS/ch1.html": chapter(*TEXT)}),
               zip_of({**BOOK, "toc.ncx": b"\xff\xfe"}), zip_of({**BOOK, "ch2.html": b""})]
    cases = ([C(FILE, result, FILE, gold) for result in results]
             + [C(None, FILE, gold), C(FILE, gold, None), C(FILE, gold, FILE, b"not a zip"),
                C(FILE, b"not a zip", FILE, b"not a zip")])
    assert_agrees("compare_epub", reference.compare_epub, compare_epub, cases, tmp_path, capsys, suffix=".epub")


def mp3(**tags: str | list[str]) -> bytes:
    """A few bytes of an MPEG audio frame behind an ID3 tag holding `tags` (EasyID3's names)."""
    out = io.BytesIO(b"\xff\xfb\x90\x00" + bytes(400))
    written = EasyID3()
    for name, value in tags.items():
        written[name] = value
    written.save(out)
    return out.getvalue()


def test_check_mp3_meta_agrees_with_osworlds_own(reference, tmp_path, capsys):
    rule = {"title": {"method": "eq", "ref": "Missing You"}, "artist": {"method": "eq", "ref": "Cheng Xiang"}}
    files = [mp3(title="Missing You", artist="Cheng Xiang"), mp3(title="Missing You", artist="Han Baoyi"),
             mp3(title="Missing You", artist=["Cheng Xiang", "Han Baoyi"]), mp3(title="Missing You"), mp3(),
             mp3(title="missing you", artist="Cheng Xiang")]
    others_rules = [{"artist": {"method": "eq", "ref": "Cheng Xiang,Han Baoyi"}}, {"album": {"method": "eq", "ref": ""}},
                    {"mood": {"method": "eq", "ref": ""}}, {"title": {"method": "re.I", "ref": "^missing"}},
                    {"title": {"method": "ne", "ref": "Missing You"}}, {"date": {"method": "approx:1", "ref": 2000}},
                    {"title": {"method": "like", "ref": "x"}},
                    {"title": {"method": "eq", "ref": "Other"}, "artist": {"method": "like", "ref": "x"}}, {}]
    cases = ([C(FILE, data, rule) for data in files]
             + [C(FILE, data, rules) for data in files[2:4] for rules in others_rules]
             + [C(FILE, b"\xff\xfb\x90\x00" + bytes(400), rule), C(FILE, b"", rule), C(None, rule)])
    assert_agrees("check_mp3_meta", reference.check_mp3_meta, check_mp3_meta, cases, tmp_path, capsys, suffix=".mp3")
