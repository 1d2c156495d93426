"""The guests a WAA task is evaluated on in the whole-task parity test: for each task, the state
a solved task leaves, the untouched one, and the ways a guest fails to answer.

`worlds(evaluator)` gives them by name. The files are small, real files of the kind each path
names (an openpyxl workbook, a python-docx document, an odfpy text, a PNG, a WAV, a PyMuPDF PDF,
a zip, a 7z), built here; the public files a task downloads (`cloud_file`) are served by the
stand-in under their `dest` name, since the test has no internet. "solved" is built from what
the task's own rule expects where the rule says it (JSON settings, a window title, a folder
name, a registry value); where it does not, the result is the expected file itself.
"""

from __future__ import annotations

import io
import json
import ntpath
import wave
import zipfile
from typing import Any

import docx
import fitz
import numpy as np
import openpyxl
import py7zr
from odf.opendocument import OpenDocumentText
from odf.text import P
from PIL import Image, ImageDraw

from bench.suites.waa.guest import registry_command
from bench.suites.waa.settings import NIGHT_LIGHT, TIMEZONE

from tests.suites.waa.windows_guest import DESKTOP, DOCUMENTS, SERVER_ERROR, USER, YES_NO, World, ran

CHROME_PROFILE = USER + "\\AppData\\Local\\Google\\Chrome\\User Data\\Default"
EDGE_PROFILE = USER + "\\AppData\\Local\\Microsoft\\Edge\\User Data\\Default"
VLCRC = USER + "\\AppData\\Roaming\\vlc\\vlcrc"
WALLPAPER = USER + "\\AppData\\Roaming\\Microsoft\\Windows\\Themes\\TranscodedWallpaper"
ENDPOINTS = (*YES_NO, "/desktop_path", "/documents_path", "/file_exists", "/folder_exists", "/list_directory",
             "/library_folders", "/wallpaper")
APPS = 'powershell -Command "Get-AppxPackage | Select-Object Name,PackageFullName | ConvertTo-Json"'
GARBAGE = b"\x00\xffnot what was asked for\r\n"


def specs(value: Any) -> list[dict]:
    return [item for item in (value if isinstance(value, list) else [value]) if item]


def workbook(value: str) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Name", "Amount", "Date"])
    sheet.append([value, 12.5, "2024-01-31"])
    sheet.append(["Other", 7, "2024-02-29"])
    return _saved(book.save)


def document(text: str) -> bytes:
    made = docx.Document()
    made.add_paragraph(text)
    run = made.add_paragraph().add_run("Second paragraph, in italic 14 pt.")
    run.italic = True
    table = made.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = text, "cell"
    return _saved(made.save)


def odt(text: str) -> bytes:
    made = OpenDocumentText()
    made.text.addElement(P(text=text))
    return _saved(made.save)


def png(text: str, size: tuple[int, int] = (320, 200), ring: bool = False) -> bytes:
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), text, fill="black")
    if ring:
        draw.ellipse((100, 50, 220, 170), outline=(237, 28, 36), width=5)
    return _saved(lambda out: image.save(out, "PNG"))


def wav(text: str) -> bytes:
    tone = (np.sin(np.linspace(0, 440 * len(text), 8000)) * 12000).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as audio:
        audio.setnchannels(1), audio.setsampwidth(2), audio.setframerate(8000)
        audio.writeframes(tone.tobytes())
    return out.getvalue()


def pdf(text: str) -> bytes:
    made = fitz.open()
    made.new_page().insert_text((72, 72), text)
    return made.tobytes()


def archive(text: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as made:
        made.writestr("notes.txt", text)
    return out.getvalue()


def _saved(save) -> bytes:
    out = io.BytesIO()
    save(out)
    return out.getvalue()


MAKERS = {".xlsx": workbook, ".docx": document, ".odt": odt, ".png": png, ".jpg": png, ".mp3": wav, ".wav": wav,
          ".mp4": wav, ".pdf": pdf, ".zip": archive}


def made(path: str, text: str) -> bytes:
    """A file of the kind `path` names, holding `text`; plain text for any other kind."""
    maker = MAKERS.get(ntpath.splitext(path)[1].lower())
    return maker(text) if maker else f"{text}\nsecond line\n".encode()


def gold(evaluator: dict) -> dict[str, bytes]:
    """Each public file the task downloads, by the `dest` it is served under."""
    web = {}
    for spec in specs(evaluator.get("expected")):
        if spec["type"] == "cloud_file":
            paths = spec["path"] if spec.get("multi") else [spec["path"]]
            dests = spec["dest"] if spec.get("multi") else [spec["dest"]]
            web.update({dest: made(dest, "the expected content") for dest, _ in zip(dests, paths)})
    return web


def _expected_rule(evaluator: dict, index: int) -> Any:
    expected = specs(evaluator.get("expected"))
    spec = expected[index] if index < len(expected) else {}
    return (spec.get("rules") or {}) if spec.get("type") == "rule" else {}


def _expected_file(evaluator: dict, index: int, web: dict[str, bytes]) -> bytes | None:
    expected = evaluator.get("expected")
    items = expected if isinstance(expected, list) else [expected]
    spec = items[index] if index < len(items) and items[index] else {}
    if spec.get("type") == "cloud_file":
        return web[spec["dest"][0] if spec.get("multi") else spec["dest"]]
    return None


def solved(evaluator: dict, web: dict[str, bytes]) -> World:
    """What the guest holds once the task is done, as far as the task's rule says."""
    world = World(web=web, yes=True)
    funcs = evaluator["func"] if isinstance(evaluator["func"], list) else [evaluator["func"]]
    results = evaluator.get("result")
    for index, spec in enumerate(results if isinstance(results, list) else [results]):
        if spec:
            _solve(world, spec, _expected_rule(evaluator, index), _expected_file(evaluator, index, web),
                   funcs[index] if index < len(funcs) else funcs[0])
    return world


def _solve(world: World, spec: dict, rule: Any, expected_file: bytes | None, func: str) -> None:
    kind, wanted = spec["type"], rule.get("expected") if isinstance(rule, dict) else None
    files = world.files
    if kind == "vm_file":
        for path in (spec["path"] if spec.get("multi") else [spec["path"]]):
            if expected_file is not None:
                files[path] = expected_file
            elif func == "check_json_settings":
                files[path] = json.dumps(wanted).encode()
            elif func == "check_json_keybindings":
                files[path] = json.dumps([wanted]).encode()
            else:
                files[path] = made(path, "the expected content")
    elif kind == "vm_file_exists_in_vm_folder":
        files[ntpath.join(spec["folder_name"], spec["file_name"])] = b"saved"
    elif kind in ("is_file_saved_desktop", "is_file_desktop"):
        files[DESKTOP + "\\" + spec["filename"]] = spec.get("textcontent", "saved").encode()
    elif kind == "vm_file_exists_in_desktop":
        files[DESKTOP + "\\" + spec["file_name"]] = b"saved"
    elif kind == "vm_folder_exists_in_documents":
        files[DOCUMENTS + "\\" + spec["folder_name"] + "\\kept.txt"] = b"kept"
    elif kind == "vm_command_line":
        output = str(rule.get("expected", "")) if rule.get("type") == "contain" else "ms-python.python\n"
        command = spec["command"]
        world.shell[command if isinstance(command, str) else json.dumps(command)] = ran(output + "\n")
    elif kind == "vlc_config":
        files[VLCRC] = VLC_SOLVED
    elif kind == "is_file_hidden":
        files[spec["file_path"]] = b"secret"
        world.hidden = frozenset({spec["file_path"]})
    elif kind == "vm_active_window_title":
        world.title = str(wanted)
    elif kind == "all_png_file_names":
        names = ["cs-black-000.png", "cs-white-fff.png"]
        files.update({ntpath.join(spec["folder_path"], name): png(name) for name in names})
        files[spec["file_path"]] = "\n".join(names).encode()
    elif kind == "is_all_docx_in_archive":
        files[ntpath.join(spec["folder_path"], "Archive", "Doc01.docx")] = document("one")
    elif kind == "zipped_folder_in_desktop":
        files[spec["filename"]] = seven_zip(spec["password"], {"OldProjects/example.txt": b"kept"})
    elif kind == "is_files_moved_downloads":
        files[USER + "\\OldDownloads\\" + spec["folder_name"] + "\\" + spec["file_name"]] = b"moved"
    elif kind == "vm_library_folders":
        world.library = (200, json.dumps({"status": "success", "output": wanted}).encode())
    elif kind == "is_red_circle_present_on_canvas":
        files[spec["filepath"]] = png("canvas", (1280, 720), ring=True)
    elif kind == "image_dimension_matches_input":
        files[spec["filepath"]] = png("canvas", (int(spec["width"]), int(spec["height"])))
    elif kind == "vm_wallpaper":
        files[WALLPAPER] = expected_file or png("wallpaper")
    elif kind == "system_timezone":
        world.shell[TIMEZONE] = ran(json.dumps({"DisplayName": str(wanted), "StandardName": "Standard Time"}))
    elif kind == "night_light_state":
        world.shell[registry_command(*NIGHT_LIGHT)] = ran("".join(f"{byte}\n" for byte in NIGHT_LIGHT_ON))
    elif kind in REGISTRY_ANSWERS:
        for command, output in REGISTRY_ANSWERS[kind].items():
            world.shell[command] = ran(output)
    elif kind == "validate_pwa_installed":
        world.shell[APPS] = ran(json.dumps([{"Name": "PWABuilder.App", "PackageFullName": "PWABuilder.App_1.0"}]))
    elif kind in PROFILE_FILES:
        folder, name, content = PROFILE_FILES[kind]
        files[folder + "\\" + name] = json.dumps(content(spec, wanted, rule)).encode()
    elif kind == "url_shortcuts_on_desktop":
        files[DESKTOP + "\\Bing.url"] = b"[InternetShortcut]\r\nURL=https://www.bing.com/\r\n"


def seven_zip(password: str | None, names: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with py7zr.SevenZipFile(out, "w", password=password, header_encryption=password is not None) as made:
        for name, data in names.items():
            made.writestr(data, name)
    return out.getvalue()


VLC_SOLVED = b"""[qt] # Qt interface
qt-max-volume=200
qt-bgcone=0
qt-minimal-view=1
qt-video-autoresize=0
qt-slider-colours=255;255;255;20;210;20;255;199;15;245;39;29
qt-recentplay=0
[core] # core program
one-instance-when-started-from-file=0
input-record-path=C:\\Users\\Docker\\Videos\\Recordings
global-key-play-pause=Ctrl+Space
"""
NIGHT_LIGHT_ON = (67, 66, 1, 0, 10, 2, 1, 0, 42, 6, 177, 196, 172, 190, 6, 42, 43, 14, 29, 67, 66, 1, 0, 2, 1,
                  202, 20, 14, 19, 0, 202, 30, 14, 7, 0, 207, 40, 200, 62, 0, 0, 0, 0)
POLICY = "HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\StorageSense\\Parameters\\StoragePolicy"
REGISTRY_ANSWERS = {
    "storage_sense_run_frequency": {registry_command(POLICY, "01"): "1\n", registry_command(POLICY, "2048"): "7\n"},
    "desktop_background": {registry_command("HKCU:Control Panel\\Desktop", "WallPaper"): "\n"},
    "system_notifications": {registry_command(
        "HKCU:Software\\Microsoft\\Windows\\CurrentVersion\\PushNotifications", "ToastEnabled"): "0\n"},
}


def _bookmarks(spec: dict, wanted: Any, rule: dict) -> dict:
    urls = rule.get("urls", ["https://www.example.com/"])
    bar = [{"type": "url", "name": url, "url": url} for url in urls]
    return {"roots": {"bookmark_bar": {"children": bar, "type": "folder"}, "other": {"children": []}}}


PROFILE_FILES = {
    "profile_name": (CHROME_PROFILE, "Preferences", lambda spec, wanted, rule: {"profile": {"name": wanted}}),
    "profile_name_from_edge": (EDGE_PROFILE, "Preferences", lambda spec, wanted, rule: {"profile": {"name": wanted}}),
    "enable_do_not_track": (CHROME_PROFILE, "Preferences", lambda *a: {"enable_do_not_track": True}),
    "enable_do_not_track_from_edge": (EDGE_PROFILE, "Preferences", lambda *a: {"enable_do_not_track": True}),
    "enable_enhanced_safety_browsing": (CHROME_PROFILE, "Preferences",
                                        lambda *a: {"safebrowsing": {"enhanced": True}}),
    "enable_enhanced_safety_browsing_from_edge": (
        EDGE_PROFILE, "Preferences", lambda *a: {"edge": {"super_duper_secure_mode": {"enabled": True}}}),
    "data_delete_automacally": (CHROME_PROFILE, "Preferences",
                                lambda *a: {"profile": {"default_content_setting_values": {"cookies": 4}}}),
    "data_delete_automacally_from_edge": (
        EDGE_PROFILE, "Preferences", lambda *a: {"browser": {"clear_data_on_exit": {
            "browsing_history": True, "cache": True, "cookies": True, "download_history": True, "form_data": True,
            "hosted_apps_data": False, "passwords": True, "site_settings": True}}}),
    "default_search_engine": (CHROME_PROFILE, "Preferences", lambda spec, wanted, rule: {
        "default_search_provider_data": {"template_url_data": {"short_name": wanted}}}),
    "default_search_engine_from_edge": (EDGE_PROFILE, "Preferences", lambda *a: {
        "default_search_provider": {"synced_guid": "485bf7d3-0215-45af-87dc-538868000003"}}),
    "chrome_font_size": (CHROME_PROFILE, "Preferences", lambda *a: {"webkit": {"webprefs": {
        "default_font_size": 24, "default_fixed_font_size": 20, "minimum_font_size": 13}}}),
    "edge_font_size": (EDGE_PROFILE, "Preferences", lambda *a: {"webkit": {"webprefs": {
        "default_font_size": 24, "default_fixed_font_size": 20}}}),
    "edge_default_download_folder": (EDGE_PROFILE, "Preferences", lambda spec, wanted, rule: {
        "download": {"default_directory": wanted}}),
    "edge_home_page": (EDGE_PROFILE, "Secure Preferences", lambda spec, wanted, rule: {
        "homepage": f"https://{wanted}/"}),
    "enabled_experiments": (CHROME_PROFILE, "..\\Local State", lambda spec, wanted, rule: {
        "browser": {"enabled_labs_experiments": rule.get("names", [])}}),
    "bookmarks": (CHROME_PROFILE, "Bookmarks", _bookmarks),
    "favorites": (EDGE_PROFILE, "Bookmarks", _bookmarks),
}


def worlds(evaluator: dict) -> dict[str, World]:
    """The guests the task is evaluated on, by name."""
    web = gold(evaluator)
    done = solved(evaluator, web)

    def like_done(**changes: Any) -> World:
        return World(**{**vars(done), **changes})

    wrong = {path: made(path, "something else") if not path.endswith(("vlcrc", ".json", "Preferences"))
             else b"{}" for path in done.files}
    guests = {
        "untouched": World(web=web),
        "solved": done,
        "wrong content": like_done(files=wrong, yes=False),
        "/file answers 500": like_done(broken={"/file": SERVER_ERROR}),
        "/execute answers 500": like_done(broken={"/execute": SERVER_ERROR}),
        "endpoints answer 500": like_done(broken={path: SERVER_ERROR for path in ENDPOINTS}),
        "malformed answers": World(web=web, garbage=GARBAGE, title="", shell={
            command: ran(GARBAGE.decode("latin-1")) for command in done.shell}),
        "command output on stderr": like_done(shell={command: ran("", "error\n", 1) for command in done.shell}),
    }
    if web:
        guests["public file missing"] = like_done(web={})
    return guests
