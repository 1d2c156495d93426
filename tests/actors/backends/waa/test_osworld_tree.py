"""The OSWorld dialect's accessibility tree against OSWorld's own: real applications on a real Xvfb desktop
(LibreOffice Calc with a sheet of text, numbers and a formula, scrolled down; galculator, a GTK application; Chromium
with a form), each tree read by troupe (`osworld_tree.capture`) and by OSWorld's server code itself
(`_create_atspi_node` from reference/desktop_env/server/main.py over Debian's pyatspi, run by
tests/osworld_atspi_tree.py), and by OSWorld's check_accessibility_tree on selectors naming `attr:`,
`val:`, `act:`, states and cell text.

The two trees must be equal element for element (tag, every attribute, text, children in order), once
the children of nodes that are not showing, which troupe does not walk, are taken out of OSWorld's."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import time

import lxml.etree
import openpyxl
import pytest

from actors.backends.waa.server import osworld_tree
from actors.backends.x11.session import Session

from tests import osworld_reference
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(not os.path.isdir("/usr/lib/python3/dist-packages/pyatspi"),
                                reason="OSWorld's tree needs Debian's pyatspi (python3-pyatspi; scripts/setup.sh)")

CHROMIUM = "/usr/bin/chromium"
STATE = "{https://accessibility.ubuntu.example.org/ns/state}"
PAGE = """<!doctype html><title>Form</title><h1>Order</h1>
<label>Quantity <input type="range" min="0" max="10" step="2" value="4"></label>
<label>Name <input type="text" value="Ada"></label><a href="#done">Done</a><button>Send</button>"""


def _wait_for(predicate, what: str, seconds: float = 90.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.3)
    raise AssertionError(f"{what} did not appear within {seconds:g} s")


def _troupe(session: Session) -> lxml.etree._Element:
    return lxml.etree.fromstring(osworld_tree.capture(session.env["DBUS_SESSION_BUS_ADDRESS"]).encode())


def _osworlds(session: Session) -> lxml.etree._Element:
    script = ROOT / "tests" / "osworld_atspi_tree.py"
    done = subprocess.run([sys.executable, str(script)], env={**os.environ, **session.env}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return lxml.etree.fromstring(done.stdout.encode())


def _unwalked_removed(root: lxml.etree._Element) -> lxml.etree._Element:
    for element in list(root.iter()):
        if element.tag != "application" and element.getparent() is not None and element.get(f"{STATE}showing") != "true":
            for child in list(element):
                element.remove(child)
    return root


def differences(ours: lxml.etree._Element, theirs: lxml.etree._Element, path: str = "") -> list[str]:
    """Where two trees differ, by path: a tag or name, an attribute, the text, the number of children."""
    here = f"{path}/{ours.tag}[{ours.get('name', '')!r}]"
    if (ours.tag, ours.get("name")) != (theirs.tag, theirs.get("name")):
        return [f"{here}: OSWorld's is {theirs.tag}[{theirs.get('name', '')!r}]"]
    found = [f"{here} {key}: {ours.get(key)!r}, OSWorld's {theirs.get(key)!r}"
             for key in sorted(set(ours.attrib) | set(theirs.attrib)) if ours.get(key) != theirs.get(key)]
    if (ours.text or "") != (theirs.text or ""):
        found.append(f"{here} text: {ours.text!r}, OSWorld's {theirs.text!r}")
    if len(ours) != len(theirs):
        found.append(f"{here}: {len(ours)} children, OSWorld's {len(theirs)}")
    for mine, its in zip(ours, theirs):
        found += differences(mine, its, here)
    return found


def fields(root: lxml.etree._Element) -> collections.Counter:
    """How many elements carry each kind of field."""
    counts: collections.Counter = collections.Counter()
    for element in root.iter():
        kinds = {key.split("}")[0].rsplit("/", 1)[-1] if key.startswith("{") else key for key in element.attrib}
        counts.update(kinds | ({"text"} if element.text else set()))
    return counts


def _desktop() -> Session:
    session = Session.start(1280, 800)
    session.env["SAL_USE_VCLPLUGIN"] = "gtk3"
    session.env["ACCESSIBILITY_ENABLED"] = "1"
    return session


@pytest.fixture
def desktop():
    """A desktop of its own, so OSWorld's walk of it reads no other test's application."""
    session = _desktop()
    yield session
    session.close()


def _compare(desktop: Session, application: str, capsys, attempts: int = 3) -> lxml.etree._Element:
    """troupe's tree, once it equals OSWorld's read right after it (an application may still be changing
    its tree meanwhile, as Chromium does its tab's name: a few attempts)."""
    for _ in range(attempts):
        ours, theirs = _troupe(desktop), _unwalked_removed(_osworlds(desktop))
        if not (found := differences(ours, theirs)):
            break
    counts = fields(ours)
    with capsys.disabled():
        print(f"\nOSWorld tree of {application}: {sum(1 for _ in ours.iter())} elements, "
              f"{len(found)} differences; elements with " + ", ".join(f"{kind} {counts[kind]}" for kind in (
                  "state", "attributes", "component", "value", "action", "image", "selection", "text")))
    assert not found, "\n".join(found[:20])
    return ours


@pytest.fixture(scope="module")
def calc():
    desktop = _desktop()
    book = openpyxl.Workbook()
    sheet = book.active
    for row, values in enumerate((["fruit", "kg", "price"], ["apple", 3, 2.5], ["pear", 4.5, "=C15*2"]), start=13):
        for column, value in enumerate(values, start=2):
            sheet.cell(row, column, value)
    sheet.sheet_view.topLeftCell = "B12"  # scrolled: the visible cells start at B12, not A1
    book.save(desktop.home / "fruit.xlsx")
    desktop.spawn(["soffice", "--norestore", "--calc", "fruit.xlsx"])
    _wait_for(lambda: _troupe(desktop).xpath("//table-cell[@name='D15' and text()='9']"), "Calc's cell D15 showing 9")
    yield desktop
    desktop.close()


def test_a_calc_sheets_tree_is_osworlds_with_its_visible_cells(calc, capsys):
    ours = _compare(calc, "LibreOffice Calc", capsys)
    assert ours.xpath("//table-cell[@name='B14']")[0].text == "apple"
    cells = ours.xpath("//document-spreadsheet//table/table-cell")
    assert cells[0].get("name") == "B12" and 100 < len(cells) < 5000
    assert all(cell.get(f"{STATE}showing") == "true" for cell in cells)


class Scanning(osworld_tree.OSWorldReader):
    """Finds a sheet's first showing cell by OSWorld's own scan, row by row from A1."""

    def _corner_run(self, table, node, columns):
        return None


def _sheet(tree: str) -> bytes:
    """The sheet's table as XML: what the two ways of finding its first cell decide (the rest of the
    window, e.g. a menu item's state LibreOffice updates while it checks spelling, may change between
    two captures)."""
    (table,) = lxml.etree.fromstring(tree.encode()).xpath("//document-spreadsheet//table")
    return lxml.etree.tostring(table)


def test_the_cell_at_the_corner_is_where_osworlds_scan_starts(calc, monkeypatch):
    bus = calc.env["DBUS_SESSION_BUS_ADDRESS"]
    cornered = _sheet(osworld_tree.capture(bus))
    monkeypatch.setattr(osworld_tree, "OSWorldReader", Scanning)
    assert _sheet(osworld_tree.capture(bus)) == cornered


def test_osworlds_metric_reads_attributes_values_and_cell_text_from_the_sheet(calc):
    check = osworld_reference.general().check_accessibility_tree
    tree = osworld_tree.capture(calc.env["DBUS_SESSION_BUS_ADDRESS"])
    assert check(tree, [{"selectors": ['table-cell[name="C14"]'], "text": "3", "exact": True}]) == 1.0
    assert check(tree, [{"selectors": ['table-cell[name="D15"][attr|Formula="C15*2"]']}]) == 1.0
    assert check(tree, [{"xpath": "//table-cell[@name='B13' and @val:value and @st:selectable='true']"}]) == 1.0
    assert check(tree, [{"selectors": ['table-cell[name="D15"][attr|Formula="C15*3"]']}]) == 0.0
    assert check(tree, [{"selectors": ['table-cell[name="C14"]'], "text": "4", "exact": True}]) == 0.0
    assert check(tree, [{"selectors": ['table-cell[name="A1"]']}]) == 0.0  # scrolled out of view


def test_a_gtk_applications_tree_is_osworlds(desktop, capsys):
    desktop.spawn(["galculator"])
    _wait_for(lambda: _troupe(desktop).xpath("//application[@name='galculator']//toggle-button"),
              "galculator's buttons")
    tree = lxml.etree.tostring(_compare(desktop, "galculator", capsys), encoding="unicode")
    check = osworld_reference.general().check_accessibility_tree
    assert check(tree, [{"selectors": ["application[name=galculator] toggle-button[act|click_desc]"]},
                        {"selectors": ["menu[name=Edit][act|click_kb]"]}]) == 1.0


def test_chromiums_tree_is_osworlds_with_a_pages_values(desktop, capsys, tmp_path):
    page = tmp_path / "form.html"
    page.write_text(PAGE)
    desktop.spawn([CHROMIUM, f"--user-data-dir={tmp_path / 'profile'}", "--no-first-run", "--no-default-browser-check",
                   "--disable-gpu", "--no-sandbox", "--force-renderer-accessibility", page.as_uri()])
    _wait_for(lambda: _troupe(desktop).xpath("//slider[@val:value='4.0']", namespaces=osworld_tree.NAMESPACES),
              "the page's slider")
    tree = lxml.etree.tostring(_compare(desktop, "Chromium", capsys), encoding="unicode")
    check = osworld_reference.general().check_accessibility_tree
    assert check(tree, [{"xpath": "//slider[@val:value='4.0' and @val:max='10.0' and @val:step='2.0']"},
                        {"selectors": ["entry[attr|tag=input]"], "text": "Ada", "exact": True},
                        {"selectors": ["heading[name=Order]"]}]) == 1.0
