"""OSWorld's dialect of the in-VM server protocol, on the Linux server: its own endpoints, its home
folder, and the `sudo` and `apt` its tasks' setup commands call.

OSWorld's server (its Flask app, desktop_env/server/main.py) shares WAA's
endpoints and adds some; `add_endpoints` answers those, with the same paths,
bodies and answers:

- GET /accessibility: the desktop's AT-SPI tree in OSWorld's XML
  (osworld_tree.py), where the WAA dialect lists windows;
- GET /terminal: the active terminal's text (terminal.py: Ctrl+Alt+T opens
  one, as on OSWorld's Ubuntu), null when the active window is none;
- GET /cursor_position: `[x, y]`; POST /window_size (form `app_class_name`):
  the first window of that WM_CLASS, `{width, height}`, or 404;
- POST /setup/change_wallpaper `{path}` and POST /wallpaper: the picture
  set last (OSWorld sets GNOME's background, which this desktop has not;
  the picture is kept and served back), or 404;
- POST /run_python `{code}` and POST /run_bash_script `{script, timeout,
  working_dir}`: run as OSWorld runs them, only with --allow-commands;
- /start_recording and /end_recording: refused (501), with the reason;
- POST /setup/launch of `pkill` or `killall` (OSWorld's postconfigs launch
  `pkill vlc`, then VLC again): answered once it has run, where another
  program is answered once started. OSWorld's pkill is done in milliseconds,
  before the next step's launch arrives; this desktop's (a Python script, see
  below) takes longer, and would otherwise kill the relaunched program too;
- POST /setup/open_file `{path}`: opened as the WAA dialect opens it, then,
  as OSWorld's server does, answered once a window whose title holds the
  file's name (or its name without the extension) is up, and activated; 500
  when none is within OPEN_TIMEOUT (OSWorld waits up to 30 minutes).

Paths the tasks give under `/home/user` (OSWorld's VM user) are the
session's home (roots.Roots' home alias), in file requests and in commands'
text, so no episode reaches another's files. OSWorld's setup commands run
`echo PASSWORD | sudo -S ...` and `apt install ...`; `install_shims` puts a
`sudo` that runs the command as this user and an `apt`/`apt-get` that
installs nothing (an `install` of packages this machine already has
answers as apt does; any other package fails, naming it), and a `pkill`
and `killall` that signal only this desktop's processes (those whose
environment names its display: OSWorld's `pkill vlc` must not end another
episode's VLC), and a `vlc` that runs where the user is root
(vlc_as_root.py), first on the session's PATH; `prepare_home` gives the
home the folders an OSWorld VM user's has.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from Xlib import X, display as xdisplay, error as xerror

from actors.backends.waa.server import osworld_tree, terminal, vlc_as_root
from actors.backends.waa.server.guest_python import first_on_path, write_executable
from actors.backends.waa.server.http import BadRequest, Endpoints, Reply

HOME = "/home/user"
"""The home folder OSWorld's tasks name."""
RUN_PYTHON_TIMEOUT = 30.0
"""OSWorld's own limit on /run_python."""
OPEN_TIMEOUT = 120.0
"""How long /setup/open_file waits for the file's window."""

SUDO = """#!/bin/sh
# OSWorld's tasks run `echo PASSWORD | sudo -S COMMAND`: the command runs as this desktop's user.
while [ $# -gt 0 ]; do
  case "$1" in
    -S) read -r _password ;;
    -u|-g|-p) shift ;;
    --) shift; break ;;
    -*) ;;
    *) break ;;
  esac
  shift
done
[ $# -eq 0 ] && exit 0
exec "$@"
"""

APT = """#!/bin/sh
# Installs nothing: packages come with the machine. `install` of ones it has answers as apt does.
case "$1" in
  install)
    shift
    for package in "$@"; do
      case "$package" in -*) continue ;; esac
      if ! dpkg -s "$package" >/dev/null 2>&1; then
        echo "E: $package is not installed on this desktop and is not installed by it (install it beforehand)" >&2
        exit 100
      fi
      echo "$package is already the newest version."
    done ;;
  *) echo "apt $1: nothing to do on this desktop" ;;
esac
exit 0
"""


HOME_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos")
"""The folders an OSWorld VM user's home has, which its tasks' commands assume (`mkdir ~/Desktop/x`)."""


def prepare_home(home: Path) -> None:
    for name in HOME_FOLDERS:
        (home / name).mkdir(exist_ok=True)


KILL = '''#!{python}
"""`pkill` and `killall` as OSWorld's tasks call them (`pkill vlc`), confined to this desktop: only
processes whose environment names its display are signalled, so no other desktop's are."""
import os, re, signal, sys

def main(program, args):
    wanted, full, sig = None, False, signal.SIGTERM
    for arg in args:
        if arg == "-f":
            full = True
        elif arg.startswith("-") and wanted is None and arg[1:].isdigit():
            sig = int(arg[1:])
        elif arg.startswith("-") and wanted is None and hasattr(signal, "SIG" + arg[1:].upper().removeprefix("SIG")):
            sig = getattr(signal, "SIG" + arg[1:].upper().removeprefix("SIG"))
        elif not arg.startswith("-"):
            wanted = arg
    if wanted is None:
        print(f"{{program}}: no process name given", file=sys.stderr)
        return 2
    mine = ("DISPLAY=" + os.environ.get("DISPLAY", "")).encode()
    found = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{{pid}}/environ", "rb") as f:
                if mine not in f.read().split(b"\\0"):
                    continue
            with open(f"/proc/{{pid}}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{{pid}}/cmdline", "rb") as f:
                line = f.read().replace(b"\\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if program == "killall":
            hit = name == wanted or os.path.basename(line.split(" ")[0]) == wanted
        else:
            hit = re.search(wanted, line if full else name) is not None
        if hit:
            try:
                os.kill(int(pid), sig)
                found += 1
            except OSError:
                pass
    if not found and program == "killall":
        print(f"{{wanted}}: no process found", file=sys.stderr)
    return 0 if found else 1

sys.exit(main(os.path.basename(sys.argv[0]), sys.argv[1:]))
'''

KILLERS = frozenset({"pkill", "killall"})
"""The shims a /setup/launch waits for."""


def install_shims(folder: Path, env: dict[str, str]) -> None:
    """`sudo`, `apt`, `apt-get`, `pkill` and `killall` confined to this desktop, and a `vlc` that runs as
    root too (vlc_as_root.py) where VLC is installed, in `folder`, first on `env`'s PATH (the guest's
    `python` and `pyautogui` are `guest_python`'s, installed with --allow-commands)."""
    folder.mkdir(parents=True, exist_ok=True)
    kill = KILL.format(python=sys.executable)
    shims = [("sudo", SUDO), ("apt", APT), ("apt-get", APT), ("pkill", kill), ("killall", kill)]
    if Path(vlc_as_root.REAL_VLC).exists():
        shims.append(("vlc", vlc_as_root.script(sys.executable)))
    for name, text in shims:
        write_executable(folder / name, text)
    first_on_path(folder, env)


def _json(status: int, data: Any) -> Reply:
    return status, "application/json", json.dumps(data).encode()


class OSWorldEndpoints:
    """The endpoints only OSWorld's server has, over the same desktop and roots as `endpoints`."""

    def __init__(self, endpoints: Endpoints, terminals: Path | None) -> None:
        self.endpoints = endpoints
        self.desktop = endpoints.desktop
        self.terminals = terminals
        self._wallpaper: Path | None = None
        self._lock = threading.Lock()

    def accessibility(self, query: dict[str, str]) -> Reply:
        bus = self.desktop.session.env.get("DBUS_SESSION_BUS_ADDRESS")
        if bus is None:
            return _json(501, {"status": "error", "message": "this desktop exports no AT-SPI tree"})
        return _json(200, {"AT": osworld_tree.capture(bus)})

    def open_file(self, body: Any) -> Reply:
        reply = self.endpoints.open_file(body)
        if reply[0] != 200:
            return reply
        path = Path(body["path"])
        deadline = time.monotonic() + OPEN_TIMEOUT
        while True:
            for name in (path.name, path.stem):
                try:
                    self.desktop.activate(self.desktop.find_window(name, False, timeout=0))
                except LookupError:
                    continue
                return 200, "text/plain", b"File opened and window activated successfully"
            if time.monotonic() > deadline:
                return 500, "text/plain", f"Failed to find window for {path.name} within {OPEN_TIMEOUT:g} seconds.".encode()
            time.sleep(0.2)

    def launch(self, body: Any) -> Reply:
        command = body.get("command") if isinstance(body, dict) else None
        words = command.split() if isinstance(command, str) else command
        if not words or not isinstance(words[0], str) or Path(words[0]).name not in KILLERS:
            return self.endpoints.launch(body)
        reply = self.endpoints.execute(body)
        if reply[0] != 200:
            return reply
        return 200, "text/plain", f"{command} launched successfully".encode()

    def terminal(self, query: dict[str, str]) -> Reply:
        output = terminal.text(self.terminals, self.desktop.session.display) if self.terminals else None
        return _json(200, {"output": output, "status": "success"})

    def cursor_position(self, query: dict[str, str]) -> Reply:
        conn = xdisplay.Display(self.desktop.session.display)
        try:
            pointer = conn.screen().root.query_pointer()
            return _json(200, [pointer.root_x, pointer.root_y])
        finally:
            conn.close()

    def window_size(self, form: Any) -> Reply:
        if not isinstance(form, dict) or "app_class_name" not in form:
            return _json(400, {"error": "app_class_name is required"})
        wanted = str(form["app_class_name"]).lower()
        conn = xdisplay.Display(self.desktop.session.display)
        try:
            root = conn.screen().root
            clients = root.get_full_property(conn.intern_atom("_NET_CLIENT_LIST"), X.AnyPropertyType)
            for window_id in clients.value if clients else []:
                try:
                    window = conn.create_resource_object("window", window_id)
                    names = window.get_wm_class() or ()
                    if wanted in [name.lower() for name in names]:
                        geometry = window.get_geometry()
                        return _json(200, {"width": geometry.width, "height": geometry.height})
                except xerror.XError:
                    continue  # closed while we looked
        finally:
            conn.close()
        return _json(404, {"error": "Window not found"})

    def change_wallpaper(self, body: Any) -> Reply:
        if not isinstance(body, dict) or not body.get("path"):
            return 400, "text/plain; charset=utf-8", b"Path not supplied!"
        path = self.endpoints.roots.confine(str(body["path"]))
        if not path.exists():
            return 404, "text/plain; charset=utf-8", f"File not found: {path}".encode()
        with self._lock:
            self._wallpaper = path
        return 200, "text/plain; charset=utf-8", b"Wallpaper changed successfully"

    def wallpaper(self, body: Any) -> Reply:
        with self._lock:
            path = self._wallpaper
        if path is None or not path.is_file():
            return 404, "text/plain; charset=utf-8", b"Wallpaper file not found"
        return 200, "image/png", path.read_bytes()

    def run_python(self, body: Any) -> Reply:
        code = body.get("code") if isinstance(body, dict) else None
        if not code:
            return _json(400, {"status": "error", "message": "Code not supplied!"})
        self.endpoints.require_commands("run_python")
        with tempfile.NamedTemporaryFile("w", suffix=".py", dir=self.desktop.home, delete=False) as file:
            file.write(self.endpoints.roots.in_command(code))
        try:
            done = subprocess.run([sys.executable, file.name], capture_output=True, text=True, env=self.desktop.session.env,
                                  cwd=self.desktop.home, timeout=RUN_PYTHON_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return _json(500, {"status": "error", "message": "Execution timeout: Code took too long to execute",
                               "error": "TimeoutExpired", "need_more": False, "output": None})
        finally:
            Path(file.name).unlink(missing_ok=True)
        error = done.stderr or (f"Process exited with code {done.returncode}" if done.returncode else "")
        message = "\n".join(part for part in (done.stdout, error) if part)
        return _json(200, {"status": "error" if done.returncode else "success", "message": message,
                           "need_more": False, "output": done.stdout, "error": error,
                           "return_code": done.returncode})

    def run_bash_script(self, body: Any) -> Reply:
        script = body.get("script") if isinstance(body, dict) else None
        if not script:
            return _json(400, {"status": "error", "output": "Script not supplied!", "error": "", "returncode": -1})
        self.endpoints.require_commands("run_bash_script")
        timeout = body.get("timeout", 100)
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 3600:
            raise BadRequest(f"timeout must be a number of seconds in (0, 3600], got {timeout!r}")
        cwd = self.endpoints.roots.confine(body["working_dir"]) if body.get("working_dir") else self.desktop.home
        if not cwd.exists():
            return _json(400, {"status": "error", "output": f"Working directory does not exist: {body['working_dir']}",
                               "error": "", "returncode": -1})
        script = self.endpoints.roots.in_command(script)
        if "#!/bin/bash" not in script:
            script = "#!/bin/bash\n\n" + script
        try:
            done = subprocess.run(["/bin/bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, env=self.desktop.session.env, cwd=cwd, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return _json(500, {"status": "error", "output": f"Script execution timed out after {timeout} seconds",
                               "error": "", "returncode": -1})
        return _json(200, {"status": "success" if done.returncode == 0 else "error", "output": done.stdout,
                           "error": "", "returncode": done.returncode})

    @staticmethod
    def recording(body: Any) -> Reply:
        return _json(501, {"status": "error", "message": "screen recording is not available on this server "
                                                         "(troupe's run folder keeps every step's screenshot)"})


def add_endpoints(endpoints: Endpoints, terminals: Path | None = None) -> None:
    """Answer OSWorld's own endpoints too; `terminals` holds the logs of terminal.py's terminals."""
    osworld = OSWorldEndpoints(endpoints, terminals)
    endpoints.get.update({"/terminal": osworld.terminal, "/cursor_position": osworld.cursor_position,
                          "/accessibility": osworld.accessibility})
    endpoints.post.update({
        "/window_size": osworld.window_size, "/wallpaper": osworld.wallpaper,
        "/setup/change_wallpaper": osworld.change_wallpaper, "/run_python": osworld.run_python,
        "/run_bash_script": osworld.run_bash_script, "/start_recording": osworld.recording,
        "/end_recording": osworld.recording, "/setup/open_file": osworld.open_file,
        "/setup/launch": osworld.launch,
    })
