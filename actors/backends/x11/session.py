"""One fresh desktop: an Xvfb display, a session bus with AT-SPI, a window manager, a home.

The window manager is openbox with the settings of actors.backends.x11.openbox (no menu on the bare
desktop, one desktop).

Every episode gets its own `Session`, so nothing one task left behind (an
open dialog, a file in the home folder, a setting) can leak into the next.
The display number is chosen by Xvfb itself (`-displayfd`), so parallel
nodes never race for one.

Every process is started with PR_SET_PDEATHSIG: if the node is killed with
SIGKILL, its Xvfb and applications die with it instead of piling up.
Processes are started from the event loop's thread on purpose — the death
signal follows the *thread* that forked, and a worker thread may exit.
What they start in turn, the home folder and the folders the owner hands
over (`owns`) are ended and deleted by the session's reaper
(actors.backends.x11.reaper) when the owner dies without closing it.

`check()` is how a dead desktop becomes a crash of the node: it raises
`DesktopDied` when Xvfb or a watched application is gone, and the hosting
actor lets that propagate.
"""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from protocols import TroupeError
from runtime.process_tree import end_processes, found, processes_with_environ

from actors.backends.x11 import openbox, reaper

AT_SPI_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
_PR_SET_PDEATHSIG = 1


class DesktopDied(TroupeError, RuntimeError):
    """Xvfb or a watched application exited while an episode was running."""


class MissingProgram(TroupeError, FileNotFoundError):
    """A program the desktop needs is not installed; the text says which and how to get it."""


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def require(program: str, package: str | None = None) -> str:
    path = shutil.which(program) or (program if os.access(program, os.X_OK) else None)
    if path is None:
        hint = f" (Debian package {package!r}; scripts/setup.sh installs it)" if package else ""
        raise MissingProgram(f"{program!r} is not installed{hint}")
    return path


def _read_line(fd: int, timeout: float, what: str) -> str:
    """Read one line a child writes to `fd` (its display number, its bus address)."""
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            raise TimeoutError(f"{what} did not start within {timeout:g} s")
        chunk = os.read(fd, 256)
        if not chunk:
            raise RuntimeError(f"{what} exited before it was ready")
        data += chunk
    return data.decode().strip()


@dataclass
class Proc:
    """A process of the session; `watched` ones take the desktop down when they die."""

    name: str
    popen: subprocess.Popen
    watched: bool = False
    log: Path | None = None

    def died(self) -> str | None:
        code = self.popen.poll()
        if code is None or (code == 0 and self.name != "Xvfb"):
            return None  # running, or an application the task closed normally
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        last = self.log.read_bytes()[-300:].decode(errors="replace").strip() if self.log and self.log.exists() else ""
        return f"{self.name} (pid {self.popen.pid}) {how}" + (f"; its last output: {last}" if last else "")


@dataclass
class Session:
    width: int
    height: int
    home: Path
    display: str = ""
    env: dict[str, str] = field(default_factory=dict)
    procs: list[Proc] = field(default_factory=list)
    owned: list[Path] = field(default_factory=list)
    _reaper: tuple[subprocess.Popen, int] | None = field(default=None, repr=False)
    """The reaper's watcher and the write end of its pipe."""

    @classmethod
    def start(cls, width: int, height: int, *, window_manager: bool = True, accessibility: bool = True) -> Session:
        session = cls(width, height, Path(tempfile.mkdtemp(prefix="troupe-home-")))
        try:
            session._start_reaper()
            session._start_display()
            if accessibility:
                session._start_accessibility()
            if window_manager:
                openbox.write(session.home)
                session.spawn(["openbox", "--sm-disable"], name="openbox", package="openbox")
        except BaseException:
            session.close()
            raise
        return session

    def _start_reaper(self) -> None:
        read, write = os.pipe()
        try:
            watcher = subprocess.Popen(reaper.watcher(self.home), stdin=read, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        except BaseException:
            os.close(write)
            raise
        finally:
            os.close(read)
        self._reaper = (watcher, write)

    def owns(self, folder: Path) -> None:
        """Delete `folder` with the home: when the session closes, or by the reaper if its owner dies first."""
        self.owned.append(folder)
        self._tell_reaper(os.fsencode(folder))

    def _tell_reaper(self, line: bytes) -> None:
        try:
            os.write(self._reaper[1], line + b"\n")
        except BrokenPipeError:
            pass  # the reaper was ended from outside: the session's own close is all there is

    def _start_display(self) -> None:
        xvfb = require("Xvfb", "xvfb")
        read, write = os.pipe()
        try:
            self._popen("Xvfb", [xvfb, "-displayfd", str(write), "-screen", "0", f"{self.width}x{self.height}x24",
                                 "-nolisten", "tcp", "-noreset"], env=os.environ.copy(), pass_fds=(write,),
                        watched=True)
            os.close(write)
            write = -1
            self.display = ":" + _read_line(read, 20.0, "Xvfb")
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        runtime_dir = self.home / ".runtime"
        runtime_dir.mkdir(mode=0o700)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DISPLAY": self.display, "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(runtime_dir), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "GSETTINGS_BACKEND": "memory",
        }

    def _start_accessibility(self) -> None:
        """A private session bus, and the AT-SPI bus on it, so GTK applications export their trees."""
        read, write = os.pipe()
        try:
            self._popen("dbus-daemon", [require("dbus-daemon", "dbus"), "--session", "--nofork", "--nopidfile",
                                        f"--print-address={write}"], env=self.env, pass_fds=(write,))
            os.close(write)
            write = -1
            self.env["DBUS_SESSION_BUS_ADDRESS"] = _read_line(read, 10.0, "dbus-daemon")
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        self.spawn([require(AT_SPI_LAUNCHER, "at-spi2-core"), "--launch-immediately"], name="at-spi-bus-launcher")

    def spawn(self, command: list[str], *, name: str | None = None, watched: bool = False,
              package: str | None = None, cwd: Path | None = None) -> Proc:
        program = require(command[0], package)
        return self._popen(name or Path(command[0]).name, [program, *command[1:]], env=self.env,
                           watched=watched, cwd=cwd or self.home)

    def _popen(self, name: str, command: list[str], *, env: dict[str, str], watched: bool = False,
               pass_fds: tuple[int, ...] = (), cwd: Path | None = None) -> Proc:
        logs = self.home / ".logs"
        logs.mkdir(exist_ok=True)
        with open(logs / f"{name}.log", "ab") as log:
            popen = subprocess.Popen(
                command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                pass_fds=pass_fds, cwd=cwd, preexec_fn=_die_with_parent, start_new_session=True,
            )
        proc = Proc(name, popen, watched, logs / f"{name}.log")
        self.procs.append(proc)
        return proc

    def check(self) -> None:
        """Raise DesktopDied if Xvfb or a watched application is gone."""
        for proc in self.procs:
            if proc.watched and (reason := proc.died()):
                raise DesktopDied(f"the desktop on {self.display} is gone: {reason}")

    def close(self) -> None:
        """Stop every process (applications first, Xvfb last), and those that left the spawned
        ones' tree (found by this session's HOME in their environment: xdg-open starts LibreOffice and
        exits, leaving it to init), then delete the home folder."""
        spawned = {proc.popen.pid for proc in self.procs}
        strays = found(pid for pid in processes_with_environ(b"HOME", {os.fsencode(self.home)})
                       if pid not in spawned and pid != os.getpid())
        for stray in strays:
            stray.signal(signal.SIGTERM)
        for proc in reversed(self.procs):
            if proc.popen.poll() is None:
                proc.popen.terminate()
        deadline = time.monotonic() + 2.0
        for proc in reversed(self.procs):
            try:
                proc.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.popen.kill()
                proc.popen.wait()
        self.procs.clear()
        end_processes(strays, grace=2.0)
        for folder in (self.home, *self.owned):
            shutil.rmtree(folder, ignore_errors=True)
        if self._reaper is not None:
            self._tell_reaper(reaper.DONE.encode())
            watcher, write = self._reaper
            self._reaper = None
            os.close(write)
            watcher.wait()
