"""File Explorer getters: what WAA's fileexplorer.py reads from a Windows guest.

Three kinds, each with WAA's request and WAA's reading of the answer:

- WAA server endpoints that answer yes (200) or no (anything else), read as
  True/False: `are_files_sorted_by_modified_time` (`directory`; an empty one
  is False without asking), `is_details_view` (`folder_path`, sent as
  `path`; empty is False), `is_directory_read_only_for_user` (`directory`,
  `user`) and `are_all_images_tagged` (`directory`, `tag`), where an empty
  field is the task's mistake;
- endpoints that answer data: `vm_library_folders` (/library_folders' list,
  None when it says no); `is_files_moved_downloads` (/list_directory of
  C:\\Users\\Docker\\Downloads and ...\\OldDownloads: "false" when the file
  and folder names both occur anywhere in the Downloads listing's JSON text,
  "true" when OldDownloads holds the folder holding the file, else "false");
- Python run on the guest (guest.python), output parsed as WAA parses it:
  `all_png_file_names` (the listing file's lines, as a set, equal the
  folder's .png names: WAA's script prints three lines and the third is the
  answer), `is_all_docx_in_archive` (Documents\\Archive exists, every file
  in it, split on commas, ends in .docx, so an empty Archive is "false",
  and no .docx is left beside it), `is_file_hidden` (the hidden attribute,
  or a name starting with "."; a failed command is "false"),
  `vm_active_window_title` (pyautogui's title of the foreground window);
- `zipped_folder_in_desktop`: the 7z file fetched through /file, opened with
  the task's password: "true" when it holds OldProjects/example.txt. WAA
  also answers "false" when py7zr says the archive needs no password, but
  py7zr says it needs one whenever one is given, so an unlocked archive
  passes too, in WAA and here.

Where WAA's getter raises (a listing it cannot walk, output with fewer lines
than it reads, an archive that is missing, is not 7z or does not open with
the password), `GetterCrash` names the fix and the value it would read.
"""

from __future__ import annotations

import ast
import io
import json
import posixpath
import tempfile
from typing import Any

import py7zr

from actors.backends.waa.client import WAAClient
from bench.suites.waa.errors import GetterCrash
from bench.suites.waa.guest import endpoint_agrees, fetch_file, output_of, python, unread

DOWNLOADS = "C:\\Users\\Docker\\Downloads"
OLD_DOWNLOADS = "C:\\Users\\Docker\\OldDownloads"
ARCHIVED_FILE = "OldProjects/example.txt"
"""The member WAA looks for in zipped_folder_in_desktop's archive, whatever the task."""
MAX_EXTRACT = 256 * 1024 * 1024
"""The most an agent's archive may unpack to while it is checked."""


def _required(spec: dict[str, Any], *names: str) -> list[Any]:
    """The spec's fields; an empty or missing one is the task's mistake (WAA raises ValueError)."""
    for name in names:
        if not spec.get(name):
            raise KeyError(name)
    return [spec[name] for name in names]


async def are_files_sorted_by_modified_time(client: WAAClient, spec: dict[str, Any]) -> bool:
    if not spec["directory"]:
        return False
    return await endpoint_agrees(client, "/are_files_sorted_by_modified_time", {"directory": spec["directory"]})


async def is_details_view(client: WAAClient, spec: dict[str, Any]) -> bool:
    if not spec["folder_path"]:
        return False
    return await endpoint_agrees(client, "/is_details_view", {"path": spec["folder_path"]})


async def is_directory_read_only_for_user(client: WAAClient, spec: dict[str, Any]) -> bool:
    directory, user = _required(spec, "directory", "user")
    return await endpoint_agrees(client, "/is_directory_read_only_for_user", {"directory": directory, "user": user})


async def are_all_images_tagged(client: WAAClient, spec: dict[str, Any]) -> bool:
    directory, tag = _required(spec, "directory", "tag")
    return await endpoint_agrees(client, "/are_all_images_tagged", {"directory": directory, "tag": tag})


async def _answer_json(client: WAAClient, endpoint: str, body: dict[str, Any], key: str, getter: str) -> Any:
    """`key` of the endpoint's JSON answer, None when it does not answer 200."""
    response = await client.post(endpoint, json=body, answer_server_errors=True)
    if response.status_code != 200:
        return None
    try:
        return response.json()[key]
    except (ValueError, KeyError, TypeError):
        unread(f"{getter}: {endpoint} answered 200 without `{key}`: {response.text[:200]}")


async def vm_library_folders(client: WAAClient, spec: dict[str, Any]) -> Any:
    return await _answer_json(client, "/library_folders", {"library_name": spec["library_name"]}, "output",
                              "vm_library_folders")


def _holds_file_in_folder(tree: Any, folder: str, file: str) -> bool:
    """WAA's walk of OldDownloads' tree: a directory child named `folder` with a child named `file`."""
    for value in tree.values():
        if type(value) is list:
            for item in value:
                if item["type"] == "directory" and item["name"] == folder:
                    if any(child["name"] == file for child in item["children"]):
                        return True
    return False


async def is_files_moved_downloads(client: WAAClient, spec: dict[str, Any]) -> str:
    file, folder = spec["file_name"], spec["folder_name"]
    downloads = json.dumps(await _answer_json(client, "/list_directory", {"path": DOWNLOADS}, "directory_tree",
                                              "is_files_moved_downloads"))
    old = await _answer_json(client, "/list_directory", {"path": OLD_DOWNLOADS}, "directory_tree",
                             "is_files_moved_downloads")
    if file in downloads and folder in downloads:
        return "false"
    try:
        return "true" if _holds_file_in_folder(old, folder, file) else "false"
    except (AttributeError, TypeError, KeyError) as exc:
        unread(f"is_files_moved_downloads: OldDownloads' listing cannot be walked ({type(exc).__name__}: {exc}; "
               f"listing {old!r:.200})", "false")


def _png_script(file_path: str, folder_path: str) -> str:
    """WAA's program, character for character: the paths go in as the task writes them."""
    return f"""
import os
from sys import exit
def read_file(file_path):
    with open(file_path, 'r') as f:
        return set(f.read().splitlines())
def get_png_files(folder_path):
    return set([f for f in os.listdir(folder_path) if f.lower().endswith('.png')])

if not os.path.exists('{file_path}'):
    print("File {file_path} does not exist")
    exit()

file_content = read_file(r'{file_path}')
png_files = get_png_files(r'{folder_path}')
print("File content:", repr(list(file_content)))
print("PNG files:", repr(list(png_files)))
print("Result:", "true" if file_content == png_files else "false")
"""


def _after_colon(line: str) -> str:
    return line.split(":", 1)[1]


async def all_png_file_names(client: WAAClient, spec: dict[str, Any]) -> str:
    file_path, folder_path = spec["file_path"], spec["folder_path"]
    answer = await python(client, _png_script(file_path, folder_path))
    if not isinstance(answer, dict):
        unread(f"all_png_file_names: the script gave no answer ({answer!r})", "false")
    if answer.get("status") != "success":
        return "false"
    lines = output_of(answer, "all_png_file_names", "false").strip().split("\n")
    if lines[0] == f"File {file_path} does not exist":
        return "false"
    try:
        ast.literal_eval(_after_colon(lines[0]).strip())  # WAA evaluates both listings before reading the answer
        ast.literal_eval(_after_colon(lines[1]).strip())
        return _after_colon(lines[2]).strip()
    except (IndexError, ValueError, SyntaxError):
        unread(f"all_png_file_names: the script printed {answer['output'][:300]!r}, not the three lines WAA reads",
               "false")


def _exists_program(path: str) -> str:
    return f"import os; print(os.path.exists('{path}'))"


def _files_program(path: str) -> str:
    return f"import os; print(','.join([f for f in os.listdir('{path}') if os.path.isfile(os.path.join('{path}', f))]))"


async def _printed(client: WAAClient, program: str) -> str:
    return output_of(await python(client, program), "is_all_docx_in_archive", "false").strip()


async def is_all_docx_in_archive(client: WAAClient, spec: dict[str, Any]) -> str:
    folder = spec["folder_path"]
    if not folder:
        return "false"
    if (await _printed(client, _exists_program(folder))).lower() != "true":
        return "false"
    archive = posixpath.join(folder, "Archive")  # WAA's client joins on Linux, with "/"
    if (await _printed(client, _exists_program(archive))).lower() != "true":
        return "false"
    if not all(name.lower().endswith(".docx") for name in (await _printed(client, _files_program(archive))).split(",")):
        return "false"
    beside = (await _printed(client, _files_program(folder))).split(",")
    return "false" if any(name.lower().endswith(".docx") for name in beside) else "true"


def _hidden_program(path: str) -> str:
    return (f"import os; print(1 if os.path.basename(r'{path}').startswith('.') or (os.name == 'nt' and "
            f"bool(os.stat(r'{path}').st_file_attributes & 2)) else 0)")


async def is_file_hidden(client: WAAClient, spec: dict[str, Any]) -> str:
    if "file_path" not in spec:
        return "false"
    answer = await python(client, _hidden_program(spec["file_path"]))
    if not isinstance(answer, dict):
        unread(f"is_file_hidden: the command gave no answer ({answer!r})", "false")
    if answer.get("status") != "success" or answer.get("returncode") != 0:
        return "false"
    try:
        return "true" if int(output_of(answer, "is_file_hidden", "false").strip()) == 1 else "false"
    except ValueError:
        return "false"


async def vm_active_window_title(client: WAAClient, spec: dict[str, Any]) -> str:
    answer = await python(client, "import pyautogui; print(pyautogui.getActiveWindowTitle())")
    return output_of(answer, "vm_active_window_title", "").strip()


def _archive_holds(data: bytes, password: str) -> str:
    with py7zr.SevenZipFile(io.BytesIO(data), mode="r", password=password, max_extract_size=MAX_EXTRACT) as archive:
        if not archive.needs_password():
            return "false"
        names = [entry.filename for entry in archive.list() if not entry.is_directory]
        with tempfile.TemporaryDirectory() as scratch:
            archive.extractall(path=scratch)  # WAA reads every member, which fails on a wrong password
    return "true" if ARCHIVED_FILE in names else "false"


async def zipped_folder_in_desktop(client: WAAClient, spec: dict[str, Any]) -> str:
    path, password = spec["filename"], spec["password"]
    data = await fetch_file(client, path, "zipped_folder_in_desktop")
    try:
        return _archive_holds(data or b"", password)
    except Exception as exc:  # noqa: BLE001 - py7zr raises many kinds on a broken or wrongly locked archive
        raise GetterCrash(f"zipped_folder_in_desktop: {path} does not open as WAA opens it "
                          f"({type(exc).__name__}: {exc})", fix="unreadable-archive", value="false") from None


EXPLORER_GETTERS = {
    "are_files_sorted_by_modified_time": are_files_sorted_by_modified_time,
    "is_details_view": is_details_view,
    "is_directory_read_only_for_user": is_directory_read_only_for_user,
    "are_all_images_tagged": are_all_images_tagged,
    "vm_library_folders": vm_library_folders,
    "is_files_moved_downloads": is_files_moved_downloads,
    "all_png_file_names": all_png_file_names,
    "is_all_docx_in_archive": is_all_docx_in_archive,
    "is_file_hidden": is_file_hidden,
    "vm_active_window_title": vm_active_window_title,
    "zipped_folder_in_desktop": zipped_folder_in_desktop,
}
