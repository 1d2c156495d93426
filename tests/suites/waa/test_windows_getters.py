"""The Windows-side getters (settings, clock, File Explorer, paint) against a stand-in WAA
server on a real socket that answers as a Windows guest does.

Where an answer comes from: WAA's server runs an /execute command with
`subprocess.run(..., text=True)` and answers `{status, output, error,
returncode}`, so Windows' CRLF arrives as "\\n"; a PowerShell error goes to
`error` and leaves `output` empty; a REG_BINARY value printed by
`Get-ItemPropertyValue` is one decimal byte a line; Windows PowerShell 5.1's
ConvertTo-Json writes "&" as "\\u0026". WAA's own endpoints (/is_details_view,
/check_if_timer_started, ...) answer 200 for yes and 400 for no, and 500 when a
handler raises. Each test names the command WAA sends and asserts the request
troupe sent is that one, byte for byte.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image, ImageDraw

from actors.backends.waa.client import Retry, WAAClient
from actors.backends.waa.commands import PREFIX
from bench.suites.waa.browser.web_apps import INSTALLED_APPS
from bench.suites.waa.checker import WAAChecker
from bench.suites.waa.errors import GetterCrash
from bench.suites.waa.getters import GetterFailed, resolve
from bench.suites.waa.node import WAATaskSteps
from bench.suites.waa.paint import has_red_circle
from bench.suites.waa.settings import NIGHT_LIGHT, TIMEZONE
from protocols import Click, Evaluate, Point, StepRecord, Task
from runtime.errors import Refused

from tests.suites.waa import reference
from tests.suites.waa.task_worlds import seven_zip
from tests.waa_servers import Behaviour, StandIn

pytestmark = pytest.mark.anyio

SERVER_ERROR = (500, b'{"status": "error", "message": "Traceback (most recent call last): ..."}')
NO = (400, b'{"status": "error", "message": "no"}')
YES = (200, b'{"status": "success", "message": "yes"}')


def ran(output: str, error: str = "", returncode: int = 0) -> tuple[int, bytes]:
    """/execute's answer for a command that ran on the guest."""
    return 200, json.dumps({"status": "success", "output": output, "error": error, "returncode": returncode}).encode()


def registry(path: str, name: str) -> str:
    return f"powershell -Command \"Get-ItemPropertyValue -Path '{path}' -Name '{name}'\""


VALUE_NOT_SET = ran("", "Get-ItemPropertyValue : Property Data does not exist at path HKEY_CURRENT_USER\\...\r\n", 1)


class Guest(Behaviour):
    """Answers /execute by the command (a python program by its text after WAA's prefix) and other
    paths by `endpoints[path](body)`; anything not listed answers 599, so a wrong request shows."""

    def __init__(self) -> None:
        super().__init__(answer=self._reply)
        self.commands: dict[str, tuple[int, bytes]] = {}
        self.endpoints: dict[str, Any] = {}
        self.sent: list[tuple[str, Any]] = []

    def _reply(self, path: str, body: dict) -> tuple[int, bytes]:
        self.sent.append((path, body))
        if path == "/execute":
            command = body["command"]
            text = command[2].removeprefix(PREFIX) if isinstance(command, list) else command
            return self.commands.get(text, (599, b"unexpected command"))
        reply = self.endpoints.get(path)
        return (reply(body) if callable(reply) else reply) if reply else (599, b"unexpected request")


class VM:
    """One stand-in guest for a test; each `read` answers from the tables it is given."""

    def __init__(self, guest: Guest, client: WAAClient) -> None:
        self.guest, self.client = guest, client

    async def read(self, spec: dict[str, Any], commands: dict | None = None, files: dict | None = None,
                   **endpoints: Any) -> Any:
        self.guest.commands, self.guest.files = commands or {}, files or {}
        self.guest.endpoints = {"/" + name: reply for name, reply in endpoints.items()}
        self.guest.sent.clear()
        return await resolve(self.client, spec)


@pytest.fixture
async def vm():
    guest = Guest()
    with StandIn(guest) as server:
        client = WAAClient(server.url, retry=Retry(attempts=2, backoff=0.01))
        try:
            yield VM(guest, client)
        finally:
            await client.aclose()


# --- settings ------------------------------------------------------------------------------------------------------

POWERSHELL_TIMEZONE = ('{\r\n    "DisplayName":  "(UTC-08:00) Pacific Time (US \\u0026 Canada)",\r\n'
                       '    "StandardName":  "Pacific Standard Time"\r\n}\r\n').replace("\r\n", "\n")


async def test_system_timezone_reads_powershell_json_and_says_why_when_it_cannot(vm):
    spec = {"type": "system_timezone"}
    assert await vm.read(spec, {TIMEZONE: ran(POWERSHELL_TIMEZONE)}) == "(UTC-08:00) Pacific Time (US & Canada)"
    assert vm.guest.sent == [("/execute", {"command": TIMEZONE})]  # a string, no `shell`: execute_shell_command
    no_standard = ran('{\n    "DisplayName":  "(UTC) Coordinated Universal Time",\n    "StandardName":  null\n}\n')
    assert await vm.read(spec, {TIMEZONE: no_standard}) == "Unable to get time zone"
    for broken in (ran("", "Get-TimeZone : The term ... is not recognized\n", 1), SERVER_ERROR, ran("[1, 2]\n")):
        assert await vm.read(spec, {TIMEZONE: broken}) == "Error getting the timezone"


def blob(*values: int) -> str:
    """A REG_BINARY as Get-ItemPropertyValue prints it: one decimal byte a line."""
    return "".join(f"{v}\n" for v in values)


HEADER = (67, 66, 1, 0, 10, 2, 1, 0, 42, 6, 177, 196, 172, 190, 6, 42, 43, 14, 29, 67, 66, 1, 0)
"""bluelightreduction's Data up to byte 22, as Windows 11 writes it (the timestamp varies)."""
ON = (2, 1)
SCHEDULE_7PM_TO_7AM = (202, 20, 14, 19, 0, 202, 30, 14, 7, 0, 207, 40, 200, 62, 0, 0, 0, 0)
SCHEDULE_730PM_TO_645AM = (202, 20, 14, 19, 46, 30, 0, 202, 30, 14, 6, 46, 45, 0, 0, 0, 0)
NIGHT_LIGHT_STATES = [
    (HEADER + ON + SCHEDULE_7PM_TO_7AM, [True, "07:00 PM", "07:00 AM"]),
    (HEADER + ON + SCHEDULE_730PM_TO_645AM, [True, "07:30 PM", "06:45 AM"]),
    (HEADER + ON + (202, 20, 14, 202, 0) + (0,) * 10, [True]),  # on, no schedule: 202 where the hour would be
    (HEADER + SCHEDULE_7PM_TO_7AM, False),  # off: the "2 1" pair is not written
    (HEADER + ON + (202, 20, 14, 12, 0, 202, 30, 14, 0, 0) + (0,) * 6, [True, "00:00 PM", "00:00 AM"]),  # noon, as WAA
]


async def test_night_light_reads_the_settings_bytes_at_waas_offsets_and_raises_where_waa_does(vm):
    for data, state in NIGHT_LIGHT_STATES:
        assert await vm.read({"type": "night_light_state"}, {registry(*NIGHT_LIGHT): ran(blob(*data))}) == state
    for answer in (VALUE_NOT_SET, SERVER_ERROR, ran(blob(*HEADER[:20]))):
        with pytest.raises(GetterCrash, match="unread-answer") as caught:
            await vm.read({"type": "night_light_state"}, {registry(*NIGHT_LIGHT): answer})
        assert caught.value.value is False


POLICY = "HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\StorageSense\\Parameters\\StoragePolicy"
WALLPAPER = registry("HKCU:Control Panel\\Desktop", "WallPaper")
TOASTS = registry("HKCU:Software\\Microsoft\\Windows\\CurrentVersion\\PushNotifications", "ToastEnabled")


async def test_storage_sense_background_notifications_and_wallpaper_read_as_waa_does(vm):
    sense = {"type": "storage_sense_run_frequency"}
    assert await vm.read(sense, {registry(POLICY, "01"): ran("1\n"), registry(POLICY, "2048"): ran("7\n")}) == "7"
    assert await vm.read(sense, {registry(POLICY, "01"): ran("0\n")}) is None
    assert await vm.read(sense, {registry(POLICY, "01"): VALUE_NOT_SET}) is None
    with pytest.raises(GetterCrash):
        await vm.read(sense, {registry(POLICY, "01"): SERVER_ERROR})
    assert await vm.read({"type": "desktop_background"}, {WALLPAPER: ran("\n")}) == "True"
    picture = ran("C:\\Windows\\web\\wallpaper\\Windows\\img0.jpg\n")
    assert await vm.read({"type": "desktop_background"}, {WALLPAPER: picture}) == "False"
    toasts = {"type": "system_notifications"}
    assert await vm.read(toasts, {TOASTS: ran("0\n")}) == "True"
    assert await vm.read(toasts, {TOASTS: ran("1\n")}) is None  # WAA's function returns nothing
    assert await vm.read(toasts, {TOASTS: VALUE_NOT_SET}) == "False"
    assert await vm.read(toasts, {TOASTS: SERVER_ERROR}) == "False"
    assert await vm.read({"type": "vm_wallpaper"}, wallpaper=(200, b"\x89PNG...")) == b"\x89PNG..."
    with pytest.raises(GetterCrash):
        await vm.read({"type": "vm_wallpaper"}, wallpaper=(404, b"Wallpaper file not found"))


# --- clock -----------------------------------------------------------------------------------------------------------

async def test_clock_checks_are_waas_endpoints_read_by_status(vm):
    timer = {"type": "check_if_timer_started", "hours": 0, "minutes": 30, "seconds": 0}
    clock = {"type": "check_if_world_clock_exists", "city": "Kyoto", "country": "Japan"}
    for reply, answer in ((YES, "True"), (NO, "False"), (SERVER_ERROR, "False")):
        assert await vm.read(timer, check_if_timer_started=reply) == answer
        assert vm.guest.sent[0] == ("/check_if_timer_started", {"hours": 0, "minutes": 30, "seconds": 0})
        assert await vm.read(clock, check_if_world_clock_exists=reply) == answer
        assert vm.guest.sent[0] == ("/check_if_world_clock_exists", {"city": "Kyoto", "country": "Japan"})


# --- file explorer ---------------------------------------------------------------------------------------------------

async def test_yes_no_endpoints_send_waas_bodies_and_empty_fields_are_handled_as_waa_does(vm):
    cases = [
        ({"type": "is_details_view", "folder_path": "C:/Users/Docker/Documents"}, "is_details_view",
         {"path": "C:/Users/Docker/Documents"}),
        ({"type": "are_files_sorted_by_modified_time", "directory": "C:\\Users\\Docker\\Documents"},
         "are_files_sorted_by_modified_time", {"directory": "C:\\Users\\Docker\\Documents"}),
        ({"type": "is_directory_read_only_for_user", "directory": "C:\\P", "user": "TestAccount"},
         "is_directory_read_only_for_user", {"directory": "C:\\P", "user": "TestAccount"}),
        ({"type": "are_all_images_tagged", "directory": "C:\\S", "tag": "2023Vacation"}, "are_all_images_tagged",
         {"directory": "C:\\S", "tag": "2023Vacation"}),
    ]
    for spec, endpoint, body in cases:
        for reply, answer in ((YES, True), (NO, False), (SERVER_ERROR, False)):
            assert await vm.read(spec, **{endpoint: reply}) is answer
            assert vm.guest.sent[0] == ("/" + endpoint, body)  # a 500 is retried, then read as no
    assert await vm.read({"type": "is_details_view", "folder_path": ""}) is False
    assert vm.guest.sent == []  # WAA asks nothing
    with pytest.raises(GetterFailed, match="user"):
        await vm.read({"type": "is_directory_read_only_for_user", "directory": "C:\\P", "user": ""})


def tree(name: str, *children: dict) -> dict:
    return {"type": "directory", "name": name, "children": list(children)}


def listing(downloads: dict | None, old: dict | None):
    """/list_directory as WAA's server answers it: the tree, or 400 for a path that is not a folder."""
    def reply(body: dict) -> tuple[int, bytes]:
        found = downloads if body["path"] == "C:\\Users\\Docker\\Downloads" else old
        return (200, json.dumps({"directory_tree": found}).encode()) if found else (400, b'{"error": "not a dir"}')
    return reply


async def test_library_folders_and_moved_downloads_read_the_servers_listings(vm):
    folders = ["C:\\Users\\Docker\\Downloads\\Arena Code", "C:\\Users\\Docker\\Downloads\\Arena Data"]
    library = {"type": "vm_library_folders", "library_name": "Arena"}
    found = (200, json.dumps({"status": "success", "output": folders}).encode())
    assert await vm.read(library, library_folders=found) == folders
    assert vm.guest.sent == [("/library_folders", {"library_name": "Arena"})]
    assert await vm.read(library, library_folders=(400, b'{"error": "Arena does not exist"}')) is None
    spec = {"type": "is_files_moved_downloads", "folder_name": "Test", "file_name": "example.txt"}
    moved = tree("Test", {"type": "file", "name": "example.txt"})
    assert await vm.read(spec, list_directory=listing(tree("Downloads"), tree("OldDownloads", moved))) == "true"
    assert await vm.read(spec, list_directory=listing(tree("Downloads", moved), tree("OldDownloads", moved))) == "false"
    # WAA looks for the names anywhere in the listing's JSON text: "Tests" holding "example.txt.bak" counts
    decoy = tree("Tests", {"type": "file", "name": "example.txt.bak"})
    assert await vm.read(spec, list_directory=listing(tree("Downloads", decoy), tree("OldDownloads", moved))) == "false"
    assert await vm.read(spec, list_directory=listing(tree("Downloads"), tree("OldDownloads", tree("Test")))) == "false"
    with pytest.raises(GetterCrash, match="OldDownloads"):  # the folder is gone: WAA iterates None
        await vm.read(spec, list_directory=listing(tree("Downloads"), None))


PNG_SPEC = {"type": "all_png_file_names", "folder_path": "C:/Users/Docker/Pictures",
            "file_path": "C:/Users/Docker/Pictures/png_files.txt"}


def png_script_output(listed: list[str], present: list[str], result: str) -> str:
    return f"File content: {listed!r}\nPNG files: {present!r}\nResult: {result}\n"


async def test_png_names_read_the_scripts_third_line(vm):
    with pytest.raises(GetterCrash):  # 599 with no JSON: WAA's controller hands back None, which it indexes
        await vm.read(PNG_SPEC)
    program = vm.guest.sent[0][1]["command"][2].removeprefix(PREFIX)
    assert "if not os.path.exists('C:/Users/Docker/Pictures/png_files.txt'):" in program
    assert "png_files = get_png_files(r'C:/Users/Docker/Pictures')" in program
    names = ["cs-black-000.png", "cs-white-fff.png"]
    assert await vm.read(PNG_SPEC, {program: ran(png_script_output(names, names[::-1], "true"))}) == "true"
    assert await vm.read(PNG_SPEC, {program: ran(png_script_output(names, names + ["x.png"], "false"))}) == "false"
    missing = ran("File C:/Users/Docker/Pictures/png_files.txt does not exist\n")
    assert await vm.read(PNG_SPEC, {program: missing}) == "false"
    assert await vm.read(PNG_SPEC, {program: SERVER_ERROR}) == "false"  # status "error"
    with pytest.raises(GetterCrash):  # the folder is gone: a traceback on stderr, and WAA indexes empty output
        await vm.read(PNG_SPEC, {program: ran("", "FileNotFoundError: [WinError 3] ...\n", 1)})


DOCX_SPEC = {"type": "is_all_docx_in_archive", "folder_path": "C:/Users/Docker/Documents"}
EXISTS = "import os; print(os.path.exists('{}'))"
FILES = "import os; print(','.join([f for f in os.listdir('{0}') if os.path.isfile(os.path.join('{0}', f))]))"


def documents(archive: str, beside: str, archive_exists: str = "True\n") -> dict:
    folder, inner = "C:/Users/Docker/Documents", "C:/Users/Docker/Documents/Archive"
    return {EXISTS.format(folder): ran("True\n"), EXISTS.format(inner): ran(archive_exists),
            FILES.format(inner): ran(archive), FILES.format(folder): ran(beside)}


async def test_docx_archive_runs_waas_four_programs_and_splits_on_commas(vm):
    assert await vm.read(DOCX_SPEC, documents("Doc01.docx,Doc02.docx\n", "desktop.ini\n")) == "true"
    assert await vm.read(DOCX_SPEC, documents("Doc01.docx\n", "Doc02.docx,desktop.ini\n")) == "false"
    assert await vm.read(DOCX_SPEC, documents("\n", "desktop.ini\n")) == "false"  # an empty Archive: [''] has no .docx
    assert await vm.read(DOCX_SPEC, documents("", "", archive_exists="False\n")) == "false"
    with pytest.raises(GetterCrash):  # a 500 answer has no `output`, which WAA indexes
        await vm.read(DOCX_SPEC, {EXISTS.format("C:/Users/Docker/Documents"): SERVER_ERROR})


HIDDEN = ("import os; print(1 if os.path.basename(r'C:\\Users\\Docker\\Documents\\secret.txt').startswith('.') or "
          "(os.name == 'nt' and bool(os.stat(r'C:\\Users\\Docker\\Documents\\secret.txt').st_file_attributes & 2)) "
          "else 0)")
TITLE = "import pyautogui; print(pyautogui.getActiveWindowTitle())"


async def test_hidden_file_and_window_title(vm):
    spec = {"type": "is_file_hidden", "file_path": "C:\\Users\\Docker\\Documents\\secret.txt"}
    assert await vm.read(spec, {HIDDEN: ran("1\n")}) == "true"
    assert await vm.read(spec, {HIDDEN: ran("0\n")}) == "false"
    assert await vm.read(spec, {HIDDEN: ran("", "FileNotFoundError: [WinError 2] ...\n", 1)}) == "false"
    assert await vm.read(spec, {HIDDEN: SERVER_ERROR}) == "false"
    assert await vm.read({"type": "vm_active_window_title"}, {TITLE: ran("Documents\n")}) == "Documents"
    with pytest.raises(GetterCrash):
        await vm.read({"type": "vm_active_window_title"}, {TITLE: SERVER_ERROR})


ARCHIVE = "C:\\Users\\Docker\\Desktop\\OldProjects.7z"


async def test_the_7z_archive_needs_the_password_and_holds_the_folder(vm):
    spec = {"type": "zipped_folder_in_desktop", "filename": ARCHIVE, "password": "12345"}
    locked = seven_zip("12345", {"OldProjects/example.txt": b"hello"})
    assert await vm.read(spec, files={ARCHIVE: locked}) == "true"
    # py7zr's needs_password() is True whenever a password is given, so WAA's check that the archive is
    # locked never fails: an unlocked archive holding the folder passes, in WAA and here
    assert await vm.read(spec, files={ARCHIVE: seven_zip(None, {"OldProjects/example.txt": b"hi"})}) == "true"
    assert await vm.read(spec, files={ARCHIVE: seven_zip("12345", {"example.txt": b"hi"})}) == "false"
    for wrong in ({ARCHIVE: seven_zip("other", {"OldProjects/example.txt": b"hi"})}, {}, {ARCHIVE: b"PK\x03\x04"}):
        with pytest.raises(GetterCrash, match="unreadable-archive"):
            await vm.read(spec, files=wrong)


# --- paint -----------------------------------------------------------------------------------------------------------

def png(size: tuple[int, int], *shapes) -> bytes:
    image = Image.new("RGB", size, "white")
    for shape in shapes:
        shape(ImageDraw.Draw(image))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


RED = (237, 28, 36)
"""Paint's red."""


CANVASES = {
    "a red ring": png((1280, 720), lambda d: d.ellipse((400, 200, 600, 400), outline=RED, width=5)),
    "a filled red disc": png((1280, 720), lambda d: d.ellipse((400, 200, 600, 400), fill=RED)),
    "a blue ring": png((1280, 720), lambda d: d.ellipse((400, 200, 600, 400), outline=(0, 0, 255), width=5)),
    "a swatch and an oval": png((1280, 720), lambda d: d.rectangle((20, 20, 50, 50), fill=RED),
                                lambda d: d.ellipse((400, 200, 800, 300), outline=RED, width=5)),
    "a ring on grey": png((400, 300), lambda d: d.rectangle((0, 0, 400, 300), fill=(90, 90, 90)),
                          lambda d: d.ellipse((100, 50, 300, 250), outline=RED, width=5)),
    "a ring at the corner": png((300, 300), lambda d: d.ellipse((-60, -60, 60, 60), outline=RED, width=5)),
    "one red pixel": png((50, 50), lambda d: d.point((10, 10), fill=RED)),
    "white": png((50, 50)),
}


def test_red_circle_answers_as_waas_find_red_circle():
    find_red_circle = reference.getters().microsoftpaint.find_red_circle
    answers = {name: has_red_circle(Image.open(io.BytesIO(data))) for name, data in CANVASES.items()}
    assert answers == {name: bool(find_red_circle(data)) for name, data in CANVASES.items()}
    assert answers["a red ring"] and not answers["a filled red disc"] and not answers["a blue ring"]


async def test_paint_canvas_size_and_red_circle_read_the_saved_image(vm):
    saved = "C:\\Users\\Docker\\Downloads\\CanvasSize.png"
    size = {"type": "image_dimension_matches_input", "filepath": saved, "width": "800", "height": "600"}
    assert await vm.read(size, files={saved: png((800, 600))}) is True
    assert await vm.read(size, files={saved: png((1152, 648))}) is False
    assert await vm.read({**size, "width": ""}) is False  # WAA asks nothing
    for missing in ({}, {saved: b"not an image"}):  # WAA's getter raises opening it
        with pytest.raises(GetterFailed, match="CanvasSize.png"):
            await vm.read(size, files=missing)
    shot = "C:\\Users\\Docker\\Downloads\\Screenshot.png"
    circle = {"type": "is_red_circle_present_on_canvas", "filepath": shot}
    assert await vm.read(circle, files={shot: CANVASES["a red ring"]}) is True
    assert await vm.read(circle, files={shot: CANVASES["a filled red disc"]}) is False
    assert await vm.read(circle) is False  # no screenshot: WAA's 0
    with pytest.raises(GetterFailed, match="not an image"):
        await vm.read(circle, files={shot: b"not an image"})


# --- a getter that raises where WAA's does: the verdict ------------------------------------------------------------

async def test_a_result_getter_crash_scores_a_one_function_task_0_and_is_no_score_beside_another(vm):
    """WAA's evaluate() catches whatever a one-function task's result getter raises and scores 0; in a
    task of several functions it lets it escape, so WAA records no score. The fix reads the value."""
    night_light = {"type": "night_light_state"}
    wanted = {"type": "rule", "rules": {"expected": [True, "07:00 PM", "07:00 AM"]}}
    vm.guest.commands = {registry(*NIGHT_LIGHT): VALUE_NOT_SET}

    async def verdict(spec: dict, fixes: tuple[str, ...] = ()):
        state = await WAATaskSteps().inspect(vm.client, spec)
        request = Evaluate(task=Task(task_id="settings/t", instruction="-", evaluation_spec=spec), episode_id="e",
                           steps=(StepRecord(episode_id="e", step=1, action=Click(point=Point(1, 1))),), vm_state=state)
        return state, await WAAChecker(fixes=fixes).check(request)

    state, one = await verdict({"func": "exact_match", "result": night_light, "expected": wanted})
    assert state["result"] == [None] and state["errors"] == []
    assert state["crashes"][0]["at"] == "result[0]" and state["crashes"][0]["fix"] == "unread-answer"
    assert (one.success, one.score) == (False, 0.0)
    assert "scores a one-function task 0 when its result getter raises" in one.reason
    _, fixed = await verdict({"func": "exact_match", "result": night_light, "expected": wanted}, ("unread-answer",))
    assert fixed.score == 0.0 and "fix 'unread-answer' used" in fixed.reason
    two = {"func": ["exact_match", "exact_match"], "result": [night_light, night_light], "expected": [wanted, wanted]}
    with pytest.raises(Refused, match="WAA's getter raises here too"):
        await verdict(two)


# --- edge's installed web app ------------------------------------------------------------------------------------------

async def test_pwa_check_reads_get_appxpackage_as_waas_msedge_getter(vm):
    spec = {"type": "validate_pwa_installed"}
    packages = [{"Name": "Microsoft.WindowsCalculator", "PackageFullName": "Microsoft.WindowsCalculator_11"},
                {"Name": "www.PWABuilder.App", "PackageFullName": "www.PWABuilder.App_1.0"}]
    answers = [
        (ran(json.dumps(packages)), "app_installed"),
        (ran(json.dumps(packages[:1])), "app_not_installed"),
        (ran(""), "app_not_installed"),  # nothing printed
        (ran(json.dumps(packages[1])), "error"),  # one package: ConvertTo-Json prints an object, WAA meets its keys
        (ran("not json"), "error"),
        (SERVER_ERROR, "error"),  # (retried, then) no answer, which WAA's getter indexes
    ]
    for answer, read in answers:
        assert await vm.read(spec, {INSTALLED_APPS: answer}) == read
        assert vm.guest.sent and all(sent == ("/execute", {"command": INSTALLED_APPS}) for sent in vm.guest.sent)
