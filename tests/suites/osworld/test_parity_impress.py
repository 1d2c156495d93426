"""troupe's Impress metrics agree with OSWorld's own (metrics/slides.py, imported from
../shared/osworld/reference for tests only) on accessibility trees and registrymodifications.xcu files
built to sit on their edges: the slide panel present, renamed, nested, another element with its name, a
tree that is not XML; the autosave interval set, set elsewhere, set twice, empty, not a number, missing its
value, a file that is not XML, rules as an int and as a string; the presenter console off in any case,
on, off only in a later item, under another path or deeper than OSWorld looks, an empty or missing value,
no file. Prints the agreement per function. Then the presenter-console task, with its own evaluator: the
option unticked scores 1 and a fresh profile's file 0, in OSWorld's function and through troupe's checker."""

from __future__ import annotations

import pytest

from bench.suites.osworld import metrics

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, slides, task_scores

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
TREE = ('<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" name="main">'
        '<frame name="Untitled 1 - LibreOffice Impress">{}</frame></desktop-frame>')
SAVE = "/org.openoffice.Office.Common/Save/Document"
START = "/org.openoffice.Office.Impress/Misc/Start"


def xcu(*items: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
            + "\n".join(items) + "\n</oor:items>\n").encode()


def item(path: str, name: str, value: str | None) -> str:
    inner = "" if value is None else f"<value>{value}</value>"
    return f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse">{inner}</prop></item>'


AUTOSAVE = item(SAVE, "AutoSaveTimeIntervall", "3")


def console(value: str | None) -> str:
    return item(START, "EnablePresenterScreen", value)


CONSOLE_OFF = console("false")  # as LibreOffice writes the unticked option
CASES: dict[str, list[Case]] = {
    "check_left_panel": [
        C(TREE.format('<panel name="Slides"><document-frame name="Slides View"/></panel>')),
        C(TREE.format('<document-frame name="Slides View" st:visible="false"/>')),
        C(TREE.format('<document-frame name="Slide View"/>')), C(TREE.format('<panel name="Slides View"/>')),
        C(TREE.format('<document-frame name="slides view"/>')), C(TREE.format("")),
        C('<document-frame name="Slides View"/>'), C("<not xml"), C(""), C(None),
    ],
    "check_auto_saving_time": [
        C(FILE, xcu(AUTOSAVE), {"minutes": 3}), C(FILE, xcu(AUTOSAVE), {"minutes": "3"}),
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", "10")), {"minutes": 3}),
        C(FILE, xcu(item(SAVE, "AutoSave", "true")), {"minutes": 3}), C(FILE, xcu(), {"minutes": 3}),
        C(FILE, xcu(item("/org.openoffice.Office.Common/Save", "AutoSaveTimeIntervall", "3")), {"minutes": 3}),
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", "3"), item(SAVE, "AutoSaveTimeIntervall", "15")),
          {"minutes": 3}),  # the last item wins
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", "x"), item(SAVE, "AutoSaveTimeIntervall", "3")),
          {"minutes": 3}),  # only the last value is read as a number
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", " 3 ")), {"minutes": 3}),
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", "")), {"minutes": 3}),  # an empty value scores 0
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", "three")), {"minutes": 3}),
        C(FILE, xcu(item(SAVE, "AutoSaveTimeIntervall", None)), {"minutes": 3}),
        C(FILE, xcu(AUTOSAVE).replace(b"\n", b"\r\n"), {"minutes": 3}),
        C(FILE, b"<oor:items", {"minutes": 3}), C(FILE, b"", {"minutes": 3}),
        C(FILE, xcu(AUTOSAVE), {"interval": 3}), C(None, {"minutes": 3}),
    ],
    "check_presenter_console_disable": [
        C(FILE, xcu(CONSOLE_OFF)), C(FILE, xcu(AUTOSAVE, CONSOLE_OFF)),
        *[C(FILE, xcu(console(value))) for value in ("False", "FALSE", "true", " false", "0", "", None)],
        C(FILE, xcu(console("true"), CONSOLE_OFF)), C(FILE, xcu(CONSOLE_OFF, console("true"))),  # the first decides
        C(FILE, xcu(item("/org.openoffice.Office.Impress/Misc", "EnablePresenterScreen", "false"))),
        C(FILE, xcu(item(START, "EnablePresenterConsole", "false"))), C(FILE, xcu(AUTOSAVE)), C(FILE, xcu()),
        C(FILE, xcu(f'<node oor:name="wrapper">{CONSOLE_OFF}</node>')),
        C(FILE, xcu(f'<item oor:path="{START}"><node oor:name="inner"><prop oor:name="EnablePresenterScreen">'
                    '<value>false</value></prop></node></item>')),
        C(FILE, xcu(CONSOLE_OFF).replace(b"\n", b"\r\n")), C(FILE, b"<oor:items"), C(FILE, b""), C(None),
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_impress_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    assert_agrees(name, getattr(slides(), name), metrics.METRICS[name], CASES[name], tmp_path, capsys)


FRESH_PROFILE = xcu(item("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
                    item("/org.openoffice.Setup/Office", "ooSetupInstCompleted", "true"))
"""registrymodifications.xcu as LibreOffice leaves it on a fresh profile: nothing of the presenter console."""


@pytest.mark.anyio
async def test_the_presenter_console_tasks_own_evaluator_scores_the_unticked_option_1_and_a_fresh_profile_0(tmp_path):
    task_id = "libreoffice_impress/0f84bef9-9790-432e-92b7-eece357603fb"
    assert await task_scores(task_id, slides(), xcu(AUTOSAVE, CONSOLE_OFF), tmp_path, ".xcu") == (1.0, 1.0)
    assert await task_scores(task_id, slides(), FRESH_PROFILE, tmp_path, ".xcu") == (0.0, 0.0)
