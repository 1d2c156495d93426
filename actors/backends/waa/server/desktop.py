"""The Linux desktop behind the WAA-protocol server: an actors.backends.x11 Session (Xvfb,
window manager, home folder), its screen, its windows, and input through XTEST (actors.backends.x11.xtest,
on a connection of its own, under an input lock); windows are activated and closed with xdotool.

Requests are served on worker threads, but applications are started on the
main thread (`MainThread`): a session's processes die with the thread that
forked them (PR_SET_PDEATHSIG), and a request's thread ends with the request.
"""

from __future__ import annotations

import concurrent.futures
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable
from xml.sax.saxutils import quoteattr

from Xlib import error as xerror

from actors.backends.input_plan import Op
from actors.backends.screenshots import Screen
from actors.backends.x11.session import Proc, Session, require
from actors.backends.x11.windows import WindowList
from actors.backends.x11.xtest import XTestInput, batches

EXECUTE_TIMEOUT = 120.0
"""WAA's own limit on one /execute command."""


class MainThread:
    """Runs callables on the thread that calls `serve` (the main thread), for worker threads."""

    def __init__(self) -> None:
        self._calls: queue.Queue = queue.Queue()

    def call(self, function: Callable[[], Any], timeout: float = 30.0) -> Any:
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._calls.put((function, future))
        return future.result(timeout)

    def serve(self, stopped: threading.Event) -> None:
        while not stopped.is_set():
            try:
                function, future = self._calls.get(timeout=0.1)
            except queue.Empty:
                continue
            try:
                future.set_result(function())
            except Exception as exc:  # handed to the waiting request
                future.set_exception(exc)


class LinuxDesktop:
    def __init__(self, session: Session, main: MainThread) -> None:
        self.session = session
        self.main = main
        self.screen = Screen(session.display)
        self.launched: list[Proc] = []
        self._screen_lock = threading.Lock()
        self._input_lock = threading.Lock()
        self._xdotool = require("xdotool", "xdotool")
        self.input = XTestInput(session.display)

    @property
    def home(self) -> Path:
        return self.session.home

    # --- screen -------------------------------------------------------------------

    def screenshot(self) -> tuple[bytes, int, int]:
        with self._screen_lock:
            frame = self.screen.grab_sync()
            return self.screen.encode_sync(frame), frame.width, frame.height

    def accessibility_xml(self) -> str:
        """Top-level windows (title, box, active) in WAA's accessibility XML."""
        windows = WindowList(self.session.display)
        try:
            active, _ = windows.active()
            nodes = []
            for window_id in windows._window_ids("_NET_CLIENT_LIST"):
                title, app = windows.title_and_app(window_id)
                try:
                    window = windows.conn.create_resource_object("window", window_id)
                    geometry = window.get_geometry()
                    origin = window.translate_coords(windows.root, 0, 0)
                except xerror.XError:
                    continue  # closed while we looked
                nodes.append(
                    f"<window name={quoteattr(title)} st:active=\"{str(title == active).lower()}\" "
                    f"win:class={quoteattr(app)} cp:screencoord=\"({-origin.x}, {-origin.y})\" "
                    f"cp:size=\"({geometry.width}, {geometry.height})\"/>"
                )
        finally:
            windows.close()
        return ('<desktop xmlns:st="uri:deskat:state.at-spi.gnome.org" xmlns:cp="uri:deskat:component.at-spi.gnome.org" '
                f'xmlns:win="uri:deskat:uia.windows.microsoft.org" name="Desktop">{"".join(nodes)}</desktop>')

    # --- input and commands -----------------------------------------------------------

    def run_ops(self, ops: list[Op]) -> None:
        """Carry out `ops`, holding the input lock for each run of primitives but not for the
        sleeps between them: a program's pause holds up no other client's input."""
        for batch in batches(ops):
            if isinstance(batch, float):
                time.sleep(batch)
                continue
            with self._input_lock:
                self.input.send(batch)

    def execute(self, command: list[str] | str, shell: bool) -> subprocess.CompletedProcess:
        return subprocess.run(command, shell=shell, env=self.session.env, cwd=self.home, capture_output=True,
                              text=True, timeout=EXECUTE_TIMEOUT, stdin=subprocess.DEVNULL)

    def launch(self, command: list[str] | str, shell: bool) -> None:
        """Start `command` on this desktop; its program is found on the session's PATH, as a command
        /execute runs is (so the session's own `pkill` or `sudo` answers, where it has them)."""
        argv = ["sh", "-c", command] if shell else list(command)
        if argv:
            argv[0] = shutil.which(argv[0], path=self.session.env.get("PATH")) or argv[0]
        self.launched.append(self.main.call(lambda: self.session.spawn(argv)))

    # --- windows -----------------------------------------------------------------------

    def find_window(self, name: str, strict: bool, timeout: float = 10.0, by_class: bool = False) -> int:
        """The id of the first window titled `name` (exactly when strict, else containing it), or with
        `by_class` whose WM_CLASS (`instance.class`, as `wmctrl -x` reads it) is or holds `name`; a class's
        `-default` suffix is not read (Thunderbird 115 and later name theirs `thunderbird-default`, where
        the one on OSWorld's VM, which its tasks name, is `thunderbird`)."""
        deadline = time.monotonic() + timeout
        windows = WindowList(self.session.display)
        try:
            while True:
                for window_id in windows._window_ids("_NET_CLIENT_LIST"):
                    text = (windows.wm_class(window_id).removesuffix("-default") if by_class
                            else windows.title_and_app(window_id)[0])
                    if text == name or (not strict and name.lower() in text.lower()):
                        return window_id
                if time.monotonic() > deadline:
                    what = "of class" if by_class else "titled"
                    seen = ([windows.wm_class(w) for w in windows._window_ids("_NET_CLIENT_LIST")] if by_class
                            else windows.titles())
                    raise LookupError(f"no window {what} {name!r} (open: {seen})")
                time.sleep(0.1)
        finally:
            windows.close()

    def activate(self, window_id: int) -> None:
        self._xdotool_run("windowactivate", "--sync", str(window_id))

    def close_window(self, window_id: int) -> None:
        self._xdotool_run("windowclose", str(window_id))

    def close_all(self) -> None:
        for proc in self.launched:
            if proc.popen.poll() is None:
                proc.popen.terminate()
        for proc in self.launched:
            try:
                proc.popen.wait(2.0)
            except subprocess.TimeoutExpired:
                proc.popen.kill()
        self.launched.clear()

    def _xdotool_run(self, *args: str) -> None:
        with self._input_lock:
            done = subprocess.run([self._xdotool, *args], env=self.session.env, capture_output=True, timeout=15)
        if done.returncode != 0:
            raise RuntimeError(f"xdotool {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")

    def close(self) -> None:
        self.close_all()
        self.screen.close()
        self.input.close()
