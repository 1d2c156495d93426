"""troupe's text-file, desktop-state and place-name metrics agree with OSWorld's own (metrics/vscode.py,
general.py, basic_os.py and table.py, imported from ../shared/osworld/reference for tests only) on files
and values built here:

- compare_text_file: equal, CRLF or a lone CR against LF, blanks and case with and without the options,
  text that is not UTF-8, an empty file, a missing result or gold file;
- compare_result_files: a number against the same written otherwise, within and beyond 1e-4, within a
  sentence, text that is no number, "nan" and "inf", surrounding blanks, a missing file, bytes that are
  not UTF-8;
- compare_python_pure_text: a shebang and coding lines (within and past the first three), blank lines,
  tabs against spaces, trailing blanks, markdown left in, a missing file, bytes that are not UTF-8;
- is_in_vm_clickboard: the path alone, within other text, absent, a list of texts, an empty list, no
  clipboard read, a rule without `expected`;
- check_moved_jpgs: the same names in another order, one missing or extra, a folder among them, a listing
  of a folder that could not be read, no listing;
- fuzzy_place_math: three exact or misspelt answers, two or four words, words across paragraphs, a file
  that is not a document, a missing one;
- the getter content_from_vm_file: a sheet's last row of numbers, text, dates and empty cells, a sheet of
  one row or none, another file_content or file_type, a file that is not there or is not a workbook;
- compare_conference_city_in_order: the cities in order, with accents and punctuation, alternatives, one
  wrong or out of order, an empty cell, a number, fewer answers than rows, an answer of another kind, a
  file that is not a workbook, a missing one.

Prints the agreement per function."""

from __future__ import annotations

import datetime
import types

import pytest

from bench.suites.osworld.basic_os import check_moved_jpgs, is_in_vm_clickboard
from bench.suites.osworld.file_content import content_from_vm_file
from bench.suites.osworld.place_names import compare_conference_city_in_order, fuzzy_place_math
from bench.suites.osworld.text_files import compare_python_pure_text, compare_result_files, compare_text_file

from tests.osworld_reference import (FILE, REFERENCE, Case, assert_agrees, basic_os, file_getters, general,
                                     report_parity, table, vscode)
from tests.task_files import document, xlsx

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case


def test_compare_text_file_agrees_with_osworlds_own(tmp_path, capsys):
    gold = b"Hello World\nsecond line\n"
    results = [gold, b"Hello World\r\nsecond line\r\n", b"Hello World\rsecond line\r", b"hello world\nsecond line\n",
               b"Hello  World\n\tsecond line", b" Hello World second line ", b"Hello World\nsecond line",
               b"Hello W\xf6rld\n", b""]
    options = [{}, {"ignore_blanks": True}, {"ignore_case": True}, {"ignore_blanks": True, "ignore_case": True}]
    cases = ([C(FILE, result, FILE, gold, **option) for result in results for option in options]
             + [C(None, FILE, gold), C(FILE, gold, None), C(FILE, b"", FILE, b""), C(FILE, gold, FILE, b"\xff")])
    assert_agrees("compare_text_file", vscode().compare_text_file, compare_text_file, cases, tmp_path, capsys)


def test_compare_result_files_agrees_with_osworlds_own(tmp_path, capsys):
    pairs = [(b"25.5", b"25.5"), (b"25.50\n", b"25.5"), (b"25.50001", b"25.5"), (b"25.6", b"25.5"),
             (b"The median price is 25.5 dollars", b"25.5"), (b"The median price is 25.50", b"25.5"),
             (b"  1e3 ", b"1000"), (b"1_000", b"1000"), (b"nan", b"nan"), (b"inf", b"inf"), (b"-inf", b"inf"),
             (b"abc", b"abc"), (b"abc ", b" abc\n"), (b"abd", b"abc"), (b"", b""), (b"", b"1"), (b"1", b""),
             (b"\xff", b"1"), (b"1", b"\xff")]
    cases = ([C(FILE, mine, FILE, gold) for mine, gold in pairs]
             + [C(None, FILE, b"1"), C(FILE, b"1", None), C(None, None)])
    assert_agrees("compare_result_files", vscode().compare_result_files, compare_result_files, cases, tmp_path,
                  capsys)


def test_compare_python_pure_text_agrees_with_osworlds_own(tmp_path, capsys):
    gold = b"import torch\n\n# the model\ndef f(x):\n    return x  # done\n"
    results = [gold, b"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n" + gold, b"# coding: utf-8\n\n" + gold,
               b"\n\n\n#!/usr/bin/env python\n" + gold, b"# coding=utf-8\n# coding:latin-1\n# coding: x\n# coding: y\n"
               + gold, b"import torch\n# the model\ndef f(x):\n\treturn x  # done   \n",
               b"import torch\n# the model\ndef f(x):\n  return x  # done\n", b"```python\n" + gold + b"```\n",
               b"import torch\r\n\r\n# the model\r\ndef f(x):\r\n    return x  # done\r\n", b"", b"\xff\xfe"]
    cases = ([C(FILE, result, FILE, gold) for result in results]
             + [C(FILE, b"#!python\n", FILE, b""), C(None, FILE, gold), C(FILE, gold, None)])
    assert_agrees("compare_python_pure_text", general().compare_python_pure_text, compare_python_pure_text, cases,
                  tmp_path, capsys)


def test_is_in_vm_clickboard_agrees_with_osworlds_own(tmp_path, capsys):
    path = "/home/user/Data3/List3/secret.docx"
    rule = {"expected": path}
    clipboards = [path, f"{path}\n", f"file://{path}", "/home/user/Data1/List1/secret.docx", "", "secret.docx"]
    cases = ([C(rule, clipboard) for clipboard in clipboards]
             + [C({"expected": [path, "Data3"]}, path), C({"expected": [path, "Data4"]}, path),
                C({"expected": []}, ""), C({"expected": []}, None), C(rule, None), C({"wanted": path}, path),
                C({"expected": 3}, path), C(path, path)])
    assert_agrees("is_in_vm_clickboard", basic_os().is_in_vm_clickboard, is_in_vm_clickboard, cases, tmp_path,
                  capsys)


def _listing(*names: str, folder: str = "") -> dict:
    children = [{"type": "file", "name": name} for name in names]
    if folder:
        children.append({"type": "directory", "name": folder, "children": [{"type": "file", "name": "x.jpg"}]})
    return {"type": "directory", "name": "cpjpg", "children": children}


def test_check_moved_jpgs_agrees_with_osworlds_own(tmp_path, capsys):
    jpgs = ["emnlp2023.jpg", "hk_group_photo.jpg", "hong-kong-china.jpg"]
    rule = {"expected": jpgs}
    listings = [_listing(*jpgs), _listing(*jpgs[::-1]), _listing(*jpgs[:2]), _listing(*jpgs, "extra.jpg"),
                _listing(*jpgs[:2], folder="hong-kong-china.jpg"), _listing(*jpgs[:2], folder="photos"),
                _listing(jpgs[0], jpgs[0], jpgs[1]), _listing(), {"error": "Permission denied"}, None]
    cases = ([C(listing, rule) for listing in listings]
             + [C(_listing(), {"expected": []}), C(_listing(*jpgs), {}), C(_listing(*jpgs), {"expected": "abc"})])
    assert_agrees("check_moved_jpgs", basic_os().check_moved_jpgs, check_moved_jpgs, cases, tmp_path, capsys)


PLACES = ["深圳市福田区益田路5055号信息枢纽大厦西门一楼", "深圳市福田区正义街1号", "福田区水围村龙景楼一楼",
          "深圳市福田区香梅路2002-4号"]


def test_fuzzy_place_math_agrees_with_osworlds_own(tmp_path, capsys):
    rule = {"expected": PLACES}
    documents = [document(*PLACES[:3]), document(" ".join(PLACES[1:4])), document(PLACES[0][:-2], PLACES[1] + "号",
                                                                                   "福田区水围村"),
                 document(*PLACES[:2]), document(*PLACES), document("", PLACES[0], "", PLACES[1], PLACES[2], ""),
                 document("Futian Shenzhen Macau"), document(), b"not a document"]
    cases = ([C(FILE, data, rule) for data in documents]
             + [C(None, rule), C(FILE, documents[0], {}), C(FILE, documents[0], {"expected": []}),
                C(FILE, documents[0], {"expected": PLACES[0]})])
    assert_agrees("fuzzy_place_math", general().fuzzy_place_math, fuzzy_place_math, cases, tmp_path, capsys,
                  suffix=".docx")


CITIES = ["Scottsdale", "Atlanta", ["Lake Tahoe", "Stateline"], ["Banff", "Alberta's Rockies", "Alberta’s Rockies"],
          "Beijing", ["Montreal", "Montréal"], "San Diego", "Lille", ["Montreal", "Montréal"], "San Juan",
          ["New York", "New York City", "NYC"], "Barcelona", "Toulon", "Sydney", ["Los Angeles", "Long Beach", "LA"],
          "Vancouver", "Stockholm", ["Montreal", "Montréal"], "New Orleans", ["Los Angeles", "Long Beach", "LA"],
          "Vancouver"]
"""The task's own answer list: a city, or its alternatives, per row of C2:C22."""


def _sheet(cities: list[object]) -> bytes:
    return xlsx([["Conference", "Year", "City"], *([f"C{n}", 2013 + n // 3, city] for n, city in enumerate(cities))])


def _first(answer: object) -> str:
    return answer if isinstance(answer, str) else answer[0]


def test_compare_conference_city_in_order_agrees_with_osworlds_own(tmp_path, capsys):
    rule = {"expected": CITIES}
    right = [_first(answer) for answer in CITIES]
    sheets = [right, [city.upper() + "," for city in right], [*right[:5], "Montréal, Canada", *right[6:]],
              [*right[:3], "Alberta’s Rockies", *right[4:]], [*right[:10], "NYC", *right[11:]],
              [*right[:2], "Reno", *right[3:]], [right[1], right[0], *right[2:]], [*right[:20], None],
              [*right[:20], 2019], right[:20], [*right, "Extra"], []]
    cases = ([C(FILE, _sheet(cities), rule) for cities in sheets]
             + [C(FILE, _sheet(right), {"expected": CITIES[:20]}), C(FILE, _sheet(right), {"expected": [*CITIES[:20], 7]}),
                C(FILE, _sheet(right), {"expected": {"a": 1}}), C(FILE, _sheet(right), {}),
                C(FILE, b"not a workbook", rule), C(None, rule)])
    assert_agrees("compare_conference_city_in_order", table().compare_conference_city_in_order,
                  compare_conference_city_in_order, cases, tmp_path, capsys, suffix=".xlsx")


class OneFile:
    """What both getters ask of the VM, for one file: OSWorld's env (its controller's get_file, its cache
    folder) and troupe's episode (vm_file)."""

    def __init__(self, path: str, data: bytes | None, cache: str) -> None:
        self.controller = types.SimpleNamespace(get_file=lambda asked: data if asked == path else None)
        self.cache_dir, self.data, self.path = cache, data, path

    async def vm_file(self, asked: str) -> bytes | None:
        return self.data if asked == self.path else None


async def _troupe_outcome(env: OneFile, spec: dict) -> object:
    try:
        return await content_from_vm_file(env, spec)
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


@pytest.mark.anyio
async def test_content_from_vm_file_reads_as_osworlds_getter(tmp_path, capsys):
    path = "/home/user/Desktop/researchers.xlsx"
    spec = {"type": "content_from_vm_file", "path": path, "file_type": "xlsx", "file_content": "last_row"}
    header = ["Name", "Citations", "h-index", "Since", "Top paper"]
    sheets = [xlsx([header, ["Ann", 10, 2.5, datetime.date(2020, 1, 2), "A"], ["Yann LeCun", 345074, 147, None, "Deep"]]),
              xlsx([header, ["Yann LeCun", "345074", None, True, ""]]), xlsx([header]), xlsx([]), b"not a workbook"]
    calls = ([(sheet, spec) for sheet in sheets] + [(sheets[0], {**spec, "file_content": "first_row"}),
                                                   (sheets[0], {**spec, "file_type": "csv"}), (None, spec),
                                                   (None, {**spec, "file_content": "first_row"})])
    reference = file_getters().get_content_from_vm_file
    differ = []
    for data, asked in calls:
        env = OneFile(path, data, str(tmp_path))
        theirs = _reference_outcome(reference, env, asked)
        mine = await _troupe_outcome(env, asked)
        if theirs != mine:
            differ.append((asked, theirs, mine))
    report_parity(capsys, "content_from_vm_file", len(calls), differ, against="OSWorld's getter")


def _reference_outcome(reference, env: OneFile, spec: dict) -> object:
    try:
        return reference(env, spec)
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"
