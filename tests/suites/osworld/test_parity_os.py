"""troupe's desktop-state metrics agree with OSWorld's own (metrics/basic_os.py, chrome.py, thunderbird.py,
imported from ../shared/osworld/reference for tests only) on outputs and files built to sit on their edges:
gsettings' favourite apps (the same set in another order, a duplicate, one missing, no favourites as gsettings
prints it, not a literal), timedatectl's status (UTC, another zone, +0000 elsewhere, too few lines); .desktop
shortcuts by name (exact, by case, contained either way, an empty Name=) and by Exec, unknown rule types;
Thunderbird folder files (mbox as Thunderbird writes it, "FROM - " upper-case, empty, blank, lists of files,
the options). The shortcuts_on_desktop getter reads what OSWorld's reads from the stand-in OSWorld server over
a real socket. compare_image_text without easyocr raises naming it, and --list names it as what the task
lacks (no test needs easyocr); a screen dump reads as OSWorld's own XWD reader reads it. Prints the agreement
per function."""

from __future__ import annotations

import json
import struct
from types import SimpleNamespace
from typing import Any

import numpy
import pytest

from actors.backends.waa.client import WAAClient
from actors.backends.waa.commands import command
from bench.formats.task_folder import read_task
from bench.suites.osworld import coverage, image_text
from bench.suites.osworld.coverage import gap
from bench.suites.osworld.desktop_shortcuts import is_shortcut_on_desktop
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.gnome import check_gnome_favorite_apps, is_utc_0
from bench.suites.osworld.thunderbird_folders import check_thunderbird_folder

from tests.osworld_reference import (EXAMPLES, FILE, REFERENCE, Case, Named, assert_agrees, basic_os, chrome,
                                     chrome_getters, docs, report_parity, thunderbird)
from tests.osworld_servers import osworld_vm
from tests.waa_servers import StandIn

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
FAVOURITES = {"expected": ["google-chrome.desktop", "thunderbird.desktop"]}
FAVOURITE_CASES = [
    C("['google-chrome.desktop', 'thunderbird.desktop']\n", FAVOURITES),
    C("['thunderbird.desktop', 'google-chrome.desktop']\n", FAVOURITES),
    C("['google-chrome.desktop', 'thunderbird.desktop', 'vim.desktop']\n", FAVOURITES),
    C("['google-chrome.desktop']\n", FAVOURITES),
    C("['google-chrome.desktop', 'google-chrome.desktop']\n", FAVOURITES),
    C("  ['google-chrome.desktop', 'thunderbird.desktop']", FAVOURITES), C("@as []\n", FAVOURITES),
    C("[]\n", {"expected": []}), C("", FAVOURITES), C(None, FAVOURITES), C("42", FAVOURITES),
    C("[['a'], ['b']]", {"expected": ["a", "b"]}), C("('google-chrome.desktop', 'thunderbird.desktop')", FAVOURITES),
    C("['google-chrome.desktop', 'thunderbird.desktop']", {}),
]
ZONE = "               Local time: Thu 2024-01-25 12:56:06 {abbrev}\n           Universal time: Thu 2024-01-25 12:56:06 UTC\n                 RTC time: Thu 2024-01-25 12:56:05\n                Time zone: {zone}\nSystem clock synchronized: yes\n"
UTC_CASES = [
    C(ZONE.format(abbrev="UTC", zone="Etc/UTC (UTC, +0000)")), C(ZONE.format(abbrev="WET", zone="Atlantic/Faroe (WET, +0000)")),
    C(ZONE.format(abbrev="CET", zone="Europe/Paris (CET, +0100)")), C(ZONE.format(abbrev="UTC", zone="Etc/UTC (UTC, +0000) ")),
    C(ZONE.format(abbrev="UTC", zone="Etc/UTC (UTC, +0000)").replace("\n", "\r\n")),
    C("Local time: now\nUniversal time: now\n"), C(""), C(None),
]


def test_check_gnome_favorite_apps_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("check_gnome_favorite_apps", basic_os().check_gnome_favorite_apps, check_gnome_favorite_apps,
                         FAVOURITE_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


def test_favourite_apps_that_are_code_are_never_run(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(MetricFailed, match="is not a Python literal"):
        check_gnome_favorite_apps(f"[open({str(marker)!r}, 'w').close()]", FAVOURITES)
    assert not marker.exists()


def test_is_utc_0_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("is_utc_0", basic_os().is_utc_0, is_utc_0, UTC_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


def shortcut(name: str = "Play Puzzle Game 2048", exec_line: str = "chromium --app=https://play2048.co/") -> str:
    return f"[Desktop Entry]\nVersion=1.0\nName={name}\nExec={exec_line}\nType=Application\n"


NAME = {"type": "name", "name": "Play Puzzle Game 2048"}
EXEC = {"type": "exec", "exec": "chromium --app=https://play2048.co/"}
SHORTCUT_CASES = [
    C({"2048.desktop": shortcut()}, NAME), C({"a.desktop": shortcut("Files"), "b.desktop": shortcut()}, NAME),
    C({"2048.desktop": shortcut("play puzzle game 2048")}, NAME), C({"2048.desktop": shortcut("2048")}, NAME),
    C({"2048.desktop": shortcut("Play Puzzle Game 2048 - Chromium")}, NAME), C({"2048.desktop": shortcut("")}, NAME),
    C({"2048.desktop": shortcut("Solitaire")}, NAME), C({"2048.desktop": shortcut().replace("\n", "\r\n")}, NAME),
    C({"2048.desktop": "Name=Play Puzzle Game 2048"}, NAME), C({"2048.desktop": " Name=Play Puzzle Game 2048\n"}, NAME),
    C({}, NAME), C([], NAME), C({"2048.desktop": shortcut()}, EXEC),
    C({"2048.desktop": shortcut(exec_line="chromium --app=https://play2048.co/ %U")}, EXEC),
    C({"2048.desktop": shortcut(exec_line="CHROMIUM --app=https://play2048.co/")}, EXEC),
    C({"2048.desktop": shortcut(exec_line="firefox")}, EXEC), C({"2048.desktop": shortcut()}, {"type": "url"}),
    C({"2048.desktop": shortcut()}, {"type": "id"}), C({"2048.desktop": shortcut()}, {"type": "name"}),
    C({"2048.desktop": shortcut()}, {}),
]


def test_is_shortcut_on_desktop_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("is_shortcut_on_desktop", chrome().is_shortcut_on_desktop, is_shortcut_on_desktop,
                         SHORTCUT_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


DESKTOP = "/home/user/Desktop"


def _vm(entries: list[str], files: dict[str, bytes], platform: str = "Linux"):
    """The stand-in OSWorld server with a desktop folder listing `entries` and the Python programs the getter runs."""
    outputs = {json.dumps(command("import platform; print(platform.system())")): platform + "\n"}
    outputs.update({json.dumps(command(f"import os; print(os.path.join(os.path.expanduser('~'), 'Desktop', '{name}'))")):
                    f"{DESKTOP}/{name}\n" for name in entries})
    behaviour = osworld_vm(outputs, files={f"{DESKTOP}/{name}": data for name, data in files.items()})
    served = behaviour.answer

    def answer(path: str, body: dict) -> tuple[int, bytes] | None:
        if path == "/desktop_path":
            return 200, json.dumps({"desktop_path": DESKTOP}).encode()
        if path == "/list_directory":
            children = [{"name": name, "type": "file"} for name in entries]
            return 200, json.dumps({"directory_tree": {"name": "Desktop", "type": "directory",
                                                       "children": children}}).encode()
        return served(path, body)

    behaviour.answer = answer
    return behaviour


DESKTOPS = [
    ([], {}, "Linux"), (["2048.desktop", "notes.txt"], {"2048.desktop": shortcut().encode()}, "Linux"),
    (["a.desktop", "b.desktop"], {"a.desktop": shortcut("Files").encode(), "b.desktop": shortcut().encode()}, "Linux"),
    (["2048.desktop"], {}, "Linux"), (["2048.desktop"], {"2048.desktop": b"\xff\xfe"}, "Linux"),
    (["2048.desktop", "x.lnk"], {"x.lnk": b"lnk"}, "Windows"), (["2048.desktop"], {}, "Plan9"),
]
"""(the desktop's entries, their contents where the VM gives them, the VM's platform)."""


def _theirs(entries: list[str], files: dict[str, bytes], platform: str) -> Any:
    controller = SimpleNamespace(
        get_vm_desktop_path=lambda: DESKTOP,
        get_vm_directory_tree=lambda path: {"name": "Desktop", "children": [{"name": name} for name in entries]},
        execute_python_command=lambda program: {"output": f"{DESKTOP}/{program.rsplit(chr(39), 3)[-2]}\n"},
        get_file=lambda path: files.get(path.removeprefix(DESKTOP + "/")))
    try:
        return chrome_getters().get_shortcuts_on_desktop(SimpleNamespace(vm_platform=platform, controller=controller),
                                                          {})
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


@pytest.mark.anyio
async def test_shortcuts_on_desktop_reads_what_osworlds_getter_reads(capsys):
    differences = []
    for entries, files, platform in DESKTOPS:
        with StandIn(_vm(entries, files, platform)) as server:
            client = WAAClient(server.url)
            try:
                ours = await resolve(Episode(client, None), {"type": "shortcuts_on_desktop"})
            except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
                ours = "raises"
            finally:
                await client.aclose()
        theirs = _theirs(entries, files, platform)
        if ours != theirs:
            differences.append((entries, platform, theirs, ours))
    report_parity(capsys, "shortcuts_on_desktop", len(DESKTOPS), differences, against="OSWorld's getter",
                  counted="desktops")


MAIL = ("From - Mon Jan 08 10:00:00 2024\nX-Mozilla-Status: 0001\nX-Mozilla-Keys: \nMIME-Version: 1.0\n"
        "Subject: {subject}\n\nbody\n\n")


def mbox(*subjects: str, status: str = "0001") -> bytes:
    return "".join(MAIL.format(subject=s).replace("0001", status) for s in subjects).encode()


def upper(data: bytes) -> bytes:
    return data.replace(b"From - ", b"FROM - ")


FOLDER_CASES = [
    C(FILE, mbox("a", "b"), FILE, mbox("a", "b")), C(FILE, mbox("a"), FILE, mbox("a", "b")),
    C(FILE, b"", FILE, mbox("a")), C(FILE, b"", FILE, b""), C(FILE, b"  \n", FILE, b""),
    C(FILE, upper(mbox("a")), FILE, b""), C(FILE, upper(mbox("a")), FILE, mbox("a")),
    C(FILE, upper(mbox("a", "b")), FILE, upper(mbox("c"))), C(FILE, b"FROM - FROM - x", FILE, upper(mbox("c"))),
    C(FILE, b"FROM - FROM - x", FILE, upper(mbox("c")), remove_duplicate=False),
    C(FILE, upper(mbox("a", status="0008")), FILE, upper(mbox("a")), remove_deleted=True, ignore_status=True),
    C(FILE, mbox("a"), FILE, mbox("b"), ignore_keys=True),
    C([Named(mbox("a"), ".mbox"), Named(b"", ".mbox")], [Named(mbox("a"), ".mbox"), Named(upper(mbox("x")), ".mbox")]),
    C([Named(mbox("a"), ".mbox"), Named(b"", ".mbox")], [Named(mbox("a"), ".mbox"), Named(mbox("x"), ".mbox")]),
    C([Named(mbox("a"), ".mbox")], [Named(mbox("a"), ".mbox"), Named(b"", ".mbox")]),
    C([None, Named(b"", ".mbox")], [Named(mbox("a"), ".mbox"), Named(b"", ".mbox")]),
    C(None, FILE, mbox("a")), C(FILE, mbox("a"), None), C(FILE, b"\xff\xfe", FILE, mbox("a")),
    C(FILE, mbox("a"), [Named(mbox("a"), ".mbox")]), C(FILE, mbox("a"), []), C(None, []),
]


def test_check_thunderbird_folder_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("check_thunderbird_folder", thunderbird().check_thunderbird_folder, check_thunderbird_folder,
                         FOLDER_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


OCR_TASK = "multi_apps/02ce9a50-7af2-47ed-8596-af0c230501f8"


def test_without_easyocr_compare_image_text_names_it_and_the_listing_says_the_task_lacks_it(monkeypatch):
    for module in (image_text, coverage):  # a machine without easyocr, wherever the test runs
        monkeypatch.setattr(module, "importable", lambda package: package != "easyocr")
    with pytest.raises(MetricFailed, match=r"easyocr, which is not installed: pip install easyocr"):
        image_text.compare_image_text(b"\x89PNG picture", {"type": "text", "text": "ls"})
    assert image_text.compare_image_text(None, {"type": "text", "text": "ls"}) == 0
    domain, _, stem = OCR_TASK.partition("/")
    task = read_task(EXAMPLES / domain / f"{stem}.json", domain)
    found = gap(task, None, on_vm=True)
    assert "easyocr (a Python package: pip install easyocr" in found.named() and "easyocr" in found.counted()
    monkeypatch.setattr(coverage, "importable", lambda package: True)
    assert not gap(task, None, on_vm=True).packages


def test_with_an_ocr_reader_the_rule_text_is_looked_for_in_what_it_read(monkeypatch):
    """easyocr's reader stood in (it cannot be installed here): the texts it reads are joined with spaces."""
    reader = SimpleNamespace(readtext=lambda picture: [([0, 0], "user@vm:~$", 0.9), ([1, 1], "ls -l", 0.8)])
    monkeypatch.setattr(image_text, "importable", lambda package: True)
    monkeypatch.setattr(image_text, "_reader", lambda: reader)
    assert image_text.compare_image_text(b"picture", {"type": "text", "text": "~$ ls"}) == 1
    assert image_text.compare_image_text(b"picture", {"type": "text", "text": "1s"}) == 0
    assert image_text.compare_image_text(b"picture", {"type": "words", "text": "ls"}) == 0
    assert image_text.compare_image_text(b"picture", {"type": "text"}) == 0


def xwd(width: int, height: int, depth: int, pixels: bytes) -> bytes:
    """An X11 screen dump as `xwd` writes it: a big-endian header (version 7) of 100 bytes, then the pixels."""
    header = struct.pack(">25I", 100, 7, 2, depth, width, height, *([0] * 19))
    return header + pixels


@pytest.mark.parametrize("depth", [32, 24])
def test_a_screen_dump_reads_as_osworlds_own_xwd_reader_reads_it(depth, tmp_path):
    pixels = bytes(range(2 * 3 * depth // 8))
    dump = xwd(3, 2, depth, pixels)
    (tmp_path / "ls.xwd").write_bytes(dump)
    theirs = numpy.asarray(docs().read_x11_image(str(tmp_path / "ls.xwd")))
    assert numpy.array_equal(image_text._picture(dump), theirs)
    assert image_text._picture(b"\x89PNG not a dump") == b"\x89PNG not a dump"
