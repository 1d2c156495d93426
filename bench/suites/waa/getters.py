"""Getters: what the evaluator compares, read from the VM (or the web) by type.

A task's `evaluator.result` and `evaluator.expected` are specs like
`{"type": "vm_file", "path": ...}`; each type names a getter here. They run
inside the VM backend's `inspect`, next to the server connection, and return
plain data (bytes, str, bool, numbers, lists) that crosses a node's socket
as msgpack. Each reads what WAA's getter of that name reads:

- `rule`: the spec's own `rules` (the expected value is written in the task);
- `vm_file`: the file's bytes through /file; None when the server answers
  anything but 200 (after the client's retries of a 5xx), as WAA's client
  reads it, with a warning in the log unless the answer was 404;
- `cloud_file`: the bytes at a public URL, fetched without the server's token;
- `vm_command_line`: what a command printed on the VM (None for an answer
  other than 200);
- `vm_file_exists_in_vm_folder`: 1.0 when the file has content, fetched
  through /file as WAA does (an empty file scores 0);
- `vm_folder_exists_in_documents`, `vm_file_exists_in_desktop`: /folder_exists
  and /file_exists in the documents or desktop folder the server reports (any
  answer but 200 is no, as WAA reads it); `is_file_desktop`,
  `is_file_saved_desktop`: the desktop file through /file;
- `vlc_config`: VLC's vlcrc, where WAA's getter reads it (`_vlc_config`);
- the Chrome and Edge getters (profile files, DevTools, the address bar) in
  browser/;
- the Windows families in their own modules: settings, clock, explorer (File
  Explorer), paint; they ask the guest as WAA's controller does (guest.py).

`multi: true` on a file spec makes `path` a list and the value a list.
"""

from __future__ import annotations

import posixpath
from typing import Any, Awaitable, Callable

import httpx

from actors.backends.waa.client import WAAClient
from bench.suites.waa.browser import BROWSER_GETTERS
from bench.suites.waa.browser.profile import LINUX, WINDOWS, vm_platform
from bench.suites.waa.clock import CLOCK_GETTERS
from bench.suites.waa.errors import GetterFailed
from bench.suites.waa.explorer import EXPLORER_GETTERS
from bench.suites.waa.guest import fetch_file
from bench.suites.waa.paint import PAINT_GETTERS
from bench.suites.waa.settings import SETTINGS_GETTERS

Getter = Callable[[WAAClient, dict[str, Any]], Awaitable[Any]]

WINDOWS_VLCRC = "C:\\Users\\Docker\\AppData\\Roaming\\vlc\\vlcrc"
"""Where WAA's getter reads vlcrc on Windows, whoever the user is."""


async def _rule(client: WAAClient, spec: dict[str, Any]) -> Any:
    return spec["rules"]


async def _each_path(spec: dict[str, Any], one: Callable[[str], Awaitable[Any]]) -> Any:
    if spec.get("multi"):
        return [await one(path) for path in spec["path"]]
    return await one(spec["path"])


async def _vm_file(client: WAAClient, spec: dict[str, Any]) -> Any:
    return await _each_path(spec, lambda path: fetch_file(client, path))


async def _cloud_file(client: WAAClient, spec: dict[str, Any]) -> Any:
    async with httpx.AsyncClient(timeout=60.0, follow_redirects=True) as web:
        async def one(url: str) -> bytes:
            response = await web.get(url)
            _check(response, "cloud_file", url)
            return response.content

        return await _each_path(spec, one)


async def _vm_command_line(client: WAAClient, spec: dict[str, Any]) -> str | None:
    """The command's `output`, sent as given (`shell` too, a string or a bool, as WAA sends it);
    None for an answer other than 200; an answer without `output` fails, as WAA indexes it."""
    response = await client.post("/execute", json={"command": spec["command"], "shell": spec.get("shell", False)},
                                 answer_server_errors=True)
    if response.status_code != 200:
        return None
    try:
        return response.json()["output"]
    except (ValueError, KeyError, TypeError):
        raise GetterFailed(f"vm_command_line: /execute answered without an output: {response.text[:200]}") from None


async def _exists(client: WAAClient, endpoint: str, folder: str | None, key: str, name: str) -> bool:
    """/file_exists and /folder_exists answer 200 when it exists; any other answer is no, as WAA reads it."""
    response = await client.post(endpoint, json={"path": folder, key: name}, answer_server_errors=True)
    return response.status_code == 200


async def _special_folder(client: WAAClient, which: str) -> str | None:
    """The desktop or documents folder; None when the server does not say, as WAA's controller reads it."""
    response = await client.post(f"/{which}_path", answer_server_errors=True)
    if response.status_code != 200:
        return None
    return response.json()[f"{which}_path"]


def join(folder: str | None, name: str) -> str:
    """Join in the VM's own path flavour: backslashes if the folder uses them. No folder (the
    server did not say where the desktop is) fails, as WAA's `None + "\\" + name` raises."""
    if folder is None:
        raise GetterFailed(f"no folder to find {name!r} in: the server did not name it")
    separator = "\\" if "\\" in folder else "/"
    return folder.rstrip("\\/") + separator + name


async def _file_in_folder(client: WAAClient, spec: dict[str, Any]) -> float:
    """1.0 when the file is there and not empty: WAA fetches it through /file and
    tests its content, so an empty file counts as absent."""
    folder, name = spec["folder_name"], spec["file_name"]
    if not folder or not name:
        return 0.0
    content = await _vm_file(client, {"path": join(folder, name)})
    return 1.0 if content else 0.0


async def _folder_in_documents(client: WAAClient, spec: dict[str, Any]) -> bool:
    documents = await _special_folder(client, "documents")
    return await _exists(client, "/folder_exists", documents, "folder_name", spec["folder_name"])


async def _file_in_desktop(client: WAAClient, spec: dict[str, Any]) -> bool:
    desktop = await _special_folder(client, "desktop")
    return await _exists(client, "/file_exists", desktop, "file_name", spec["file_name"])


async def _vlc_config(client: WAAClient, spec: dict[str, Any]) -> bytes:
    """VLC's vlcrc: on Windows at WAA's fixed path (`WINDOWS_VLCRC`), on Linux in .config
    under the home, the desktop folder's parent. A VLC that never saved one fails, as WAA's
    getter raises writing None."""
    platform = await vm_platform(client)
    if platform == WINDOWS:
        path = WINDOWS_VLCRC
    elif platform == LINUX:
        desktop = await _special_folder(client, "desktop")
        if desktop is None:
            raise GetterFailed("vlc_config: the server did not name the desktop folder, below whose parent vlcrc is")
        path = posixpath.join(posixpath.dirname(desktop.rstrip("/")), ".config/vlc/vlcrc")
    else:
        raise GetterFailed(f"vlc_config: WAA reads vlcrc on Windows and Linux, and the VM runs {platform!r}")
    content = await _vm_file(client, {"path": path})
    if content is None:
        raise GetterFailed(f"vlc_config: no vlcrc at {path} (VLC never saved its settings)")
    return content


async def _is_file_desktop(client: WAAClient, spec: dict[str, Any]) -> str:
    """"true" when /file gives the desktop file (an empty one too), as WAA reads it."""
    desktop = await _special_folder(client, "desktop")
    return str(await _vm_file(client, {"path": join(desktop, spec["filename"])}) is not None).lower()


async def _is_file_saved_desktop(client: WAAClient, spec: dict[str, Any]) -> str:
    """"true" when the desktop file exists and holds `textcontent`."""
    desktop = await _special_folder(client, "desktop")
    content = await _vm_file(client, {"path": join(desktop, spec["filename"])})
    return str(content is not None and spec["textcontent"] in content.decode("utf-8", "replace")).lower()


def _check(response: httpx.Response, getter: str, what: str) -> None:
    if response.status_code != 200:
        raise GetterFailed(f"{getter} {what}: HTTP {response.status_code}: {response.text[:200]}")


GETTERS: dict[str, Getter] = {
    "rule": _rule,
    "vm_file": _vm_file,
    "cloud_file": _cloud_file,
    "vm_command_line": _vm_command_line,
    "vm_file_exists_in_vm_folder": _file_in_folder,
    "vm_folder_exists_in_documents": _folder_in_documents,
    "vm_file_exists_in_desktop": _file_in_desktop,
    "is_file_desktop": _is_file_desktop,
    "is_file_saved_desktop": _is_file_saved_desktop,
    "vlc_config": _vlc_config,
    **SETTINGS_GETTERS,
    **CLOCK_GETTERS,
    **EXPLORER_GETTERS,
    **PAINT_GETTERS,
    **BROWSER_GETTERS,
}


def specs(value: Any) -> list[dict[str, Any] | None]:
    """`result`/`expected` as a list: one spec, a list of them, or absent;
    an empty spec (`{}`, as infeasible tasks write it) reads nothing and is None."""
    if value is None:
        return []
    return [item or None for item in (value if isinstance(value, list) else [value])]


async def resolve(client: WAAClient, spec: dict[str, Any] | None) -> Any:
    """The value a spec names; a missing or unknown type is an error the checker reports."""
    if spec is None:
        return None
    kind = spec.get("type")
    getter = GETTERS.get(kind)
    if getter is None:
        raise GetterFailed(f"getter {kind!r} is not supported (supported: {sorted(GETTERS)})")
    try:
        return await getter(client, spec)
    except KeyError as exc:
        raise GetterFailed(f"getter {kind!r}: missing field {exc}") from None
