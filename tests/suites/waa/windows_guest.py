"""A Windows WAA VM as its host sees it, for tests that ask it the same questions from WAA's own
client and from troupe's: one `World` (files, answers, failures) served by the stand-in over a
real socket, so both clients read the same guest.

What the guest does, as WAA's Flask server on Windows does it:

- /file reads the file at a Windows path (case-insensitive, either slash); 404 when absent;
- /execute runs `python -c PROGRAM` (WAA's controller's way to run Python) in a model of the
  guest's Python: `os` over the files (`os.path` is Windows'), `platform.system()` "Windows",
  `pyautogui.getActiveWindowTitle()`, `open`; an exception is a traceback on stderr and
  returncode 1, as a real run's. Any other command (PowerShell's registry reads, `code
  --list-extensions`) is answered from `World.shell`, by the command as sent, or as a command
  that printed nothing and failed (a registry value never set);
- GET /platform says "Windows"; /desktop_path, /documents_path, /file_exists, /folder_exists, /list_directory as the server
  answers them over the files; the yes/no endpoints (/is_details_view, /check_if_timer_started,
  ...) 200 for yes and 400 for no; /library_folders, /wallpaper;
- `World.broken` answers a path with a fixed (status, body) before anything else: a 500 from
  /file or /execute, as a handler that raised answers.
"""

from __future__ import annotations

import contextlib
import io
import json
import ntpath
import traceback
import types
from dataclasses import dataclass, field
from typing import Any

from tests.waa_servers import Behaviour

USER = "C:\\Users\\Docker"
DESKTOP, DOCUMENTS, DOWNLOADS = USER + "\\Desktop", USER + "\\Documents", USER + "\\Downloads"
FOLDERS = (DESKTOP, DOCUMENTS, DOWNLOADS, USER + "\\Pictures", USER + "\\AppData\\Local", USER + "\\AppData\\Roaming")
ENVIRONMENT = {"LOCALAPPDATA": USER + "\\AppData\\Local", "APPDATA": USER + "\\AppData\\Roaming",
               "USERPROFILE": USER}
YES_NO = ("/is_details_view", "/are_files_sorted_by_modified_time", "/is_directory_read_only_for_user",
          "/are_all_images_tagged", "/check_if_timer_started", "/check_if_world_clock_exists")
SERVER_ERROR = (500, b'{"status": "error", "message": "Traceback (most recent call last): ..."}')


def ran(output: str, error: str = "", returncode: int = 0) -> tuple[int, bytes]:
    """/execute's answer for a command that ran on the guest."""
    return 200, json.dumps({"status": "success", "output": output, "error": error, "returncode": returncode}).encode()


NOT_SET = ran("", "Get-ItemPropertyValue : Property does not exist at path HKEY_CURRENT_USER\\...\n", 1)


def key(path: str) -> str:
    return ntpath.normcase(ntpath.normpath(path))


@dataclass
class World:
    """What the guest holds and answers. `files` by Windows path; `web` by name at GET /files/<name>
    (where the tasks' public URLs are pointed); `shell` by the command as sent; `yes` for every
    yes/no endpoint; `broken` answers a path before anything else; `garbage`, when set, is the
    content of every file the guest is asked for."""

    files: dict[str, bytes] = field(default_factory=dict)
    web: dict[str, bytes] = field(default_factory=dict)
    shell: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    yes: bool = False
    title: str = "Program Manager"
    hidden: frozenset[str] = frozenset()
    library: tuple[int, bytes] = (400, b'{"error": "library not found"}')
    broken: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    garbage: bytes | None = None


class WindowsGuest(Behaviour):
    """The stand-in's behaviour for a `World`; `world` may be replaced between requests."""

    def __init__(self, world: World | None = None, prefix: str = "") -> None:
        super().__init__(answer=self._answer, read=self._read, prefix=prefix,
                         gets={"/platform": (200, b"Windows")})
        self.world = world or World()

    @property
    def world(self) -> World:
        return self._world

    @world.setter
    def world(self, world: World) -> None:
        self._world = world
        self.files = dict(world.web)  # GET /files/<name>
        self._files = {key(path): data for path, data in world.files.items()}
        self._entries: dict[str, str] = {}
        """Every file and folder, by its normalized path: its name as written."""
        for path in [*FOLDERS, *world.files]:
            while ntpath.dirname(path) != path and key(path) not in self._entries:
                self._entries[key(path)] = ntpath.basename(ntpath.normpath(path))
                path = ntpath.dirname(ntpath.normpath(path))

    # --- files ---------------------------------------------------------------------------------

    def _read(self, path: str) -> tuple[int, bytes]:
        if "/file" in self.world.broken:
            return self.world.broken["/file"]
        if self.world.garbage is not None:
            return 200, self.world.garbage
        data = self._files.get(key(path))
        return (200, data) if data is not None else (404, b'{"error": "File not found"}')

    def _is_file(self, path: Any) -> bool:
        return isinstance(path, str) and (self.world.garbage is not None or key(path) in self._files)

    def _is_folder(self, path: Any) -> bool:
        return isinstance(path, str) and key(path) in self._entries and key(path) not in self._files

    def _children(self, folder: str) -> list[str]:
        """Names directly in `folder`, as os.listdir gives them."""
        return [name for path, name in self._entries.items() if ntpath.dirname(path) == key(folder)]

    def _tree(self, folder: str, name: str) -> dict[str, Any]:
        children = []
        for entry in self._children(folder):
            path = ntpath.join(folder, entry)
            children.append(self._tree(path, entry) if self._is_folder(path) else {"type": "file", "name": entry})
        return {"type": "directory", "name": name, "children": children}

    # --- everything else -----------------------------------------------------------------------

    def _answer(self, path: str, body: dict) -> tuple[int, bytes]:
        if path in self.world.broken:
            return self.world.broken[path]
        if path == "/execute":
            return self._execute(body)
        if path in YES_NO:
            return (200, b'{"status": "success"}') if self.world.yes else (400, b'{"status": "error"}')
        if path == "/desktop_path":
            return 200, json.dumps({"desktop_path": DESKTOP}).encode()
        if path == "/documents_path":
            return 200, json.dumps({"documents_path": DOCUMENTS}).encode()
        if path in ("/file_exists", "/folder_exists"):
            name = body.get("file_name" if path == "/file_exists" else "folder_name")
            if not isinstance(body.get("path"), str) or not isinstance(name, str):
                return SERVER_ERROR  # os.path.join(None, ...) raises in the handler
            target = ntpath.join(body["path"], name)
            found = self._is_file(target) if path == "/file_exists" else self._is_folder(target)
            return (200, b'{"status": "success"}') if found else (400, b'{"status": "error"}')
        if path == "/list_directory":
            if "path" not in body:
                return 400, b'{"error": "Missing \'path\' parameter"}'
            if not self._is_folder(body["path"]):
                return 400, b'{"error": "The provided path is not a directory"}'
            return 200, json.dumps({"directory_tree": self._tree(body["path"], ntpath.basename(body["path"]))}).encode()
        if path == "/library_folders":
            return self.world.library
        if path == "/wallpaper":
            return self._read(USER + "\\AppData\\Roaming\\Microsoft\\Windows\\Themes\\TranscodedWallpaper")
        return 404, b"<!doctype html><title>404 Not Found</title>"

    def _execute(self, body: dict) -> tuple[int, bytes]:
        command = body.get("command")
        if isinstance(command, list) and command[:2] == ["python", "-c"]:
            return self._python(command[2])
        sent = command if isinstance(command, str) else json.dumps(command)
        return self.world.shell.get(sent, NOT_SET)

    def _python(self, program: str) -> tuple[int, bytes]:
        """`program` run in the model of the guest's Python; its stdout, stderr and exit status."""
        out, error, code = io.StringIO(), "", 0
        modules = self._modules()

        def importer(name, globals=None, locals=None, fromlist=(), level=0):
            if name not in modules:
                raise ModuleNotFoundError(f"No module named {name!r}")
            return modules[name]

        builtins = {**__builtins__, "__import__": importer, "open": self._open} if isinstance(__builtins__, dict) \
            else {**vars(__builtins__), "__import__": importer, "open": self._open}
        try:
            with contextlib.redirect_stdout(out):
                exec(program, {"__builtins__": builtins, "__name__": "__main__"})  # noqa: S102 - the guest's model
        except SystemExit:
            pass
        except Exception:  # noqa: BLE001 - a program's exception is its traceback on stderr, as on the guest
            error, code = traceback.format_exc(), 1
        return ran(out.getvalue(), error, code)

    def _open(self, path: str, mode: str = "r", *args: Any, **kwargs: Any):
        if not self._is_file(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        data = self._read(path)[1]
        return io.BytesIO(data) if "b" in mode else io.StringIO(data.decode("utf-8", "replace"))

    def _modules(self) -> dict[str, types.ModuleType]:
        guest = self
        path = types.SimpleNamespace(
            join=ntpath.join, basename=ntpath.basename, dirname=ntpath.dirname, sep="\\",
            exists=lambda p: guest._is_file(p) or guest._is_folder(p), isfile=guest._is_file,
            isdir=guest._is_folder, expanduser=lambda p: USER + p[1:] if p.startswith("~") else p)

        def listdir(folder: str) -> list[str]:
            if not guest._is_folder(folder):
                raise FileNotFoundError(3, "The system cannot find the path specified", folder)
            return guest._children(folder)

        def stat(target: str):
            if not path.exists(target):
                raise FileNotFoundError(2, "The system cannot find the file specified", target)
            return types.SimpleNamespace(st_file_attributes=2 if key(target) in {key(h) for h in guest.world.hidden}
                                         else 0)

        os_module = types.SimpleNamespace(path=path, name="nt", sep="\\", listdir=listdir, stat=stat,
                                          getenv=ENVIRONMENT.get, environ=ENVIRONMENT, system=lambda command: 0)
        pyautogui = types.SimpleNamespace(FAILSAFE=True, getActiveWindowTitle=lambda: guest.world.title)
        return {"os": os_module, "platform": types.SimpleNamespace(system=lambda: "Windows"),
                "pyautogui": pyautogui, "time": types.SimpleNamespace(sleep=lambda seconds: None),
                "sys": types.SimpleNamespace(exit=lambda *a: (_ for _ in ()).throw(SystemExit(*a))),
                "json": json}
