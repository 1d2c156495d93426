"""The Windows desktop backend: VMBackend and ScreenBackend on the machine the node runs on.

A Windows machine cannot be re-created per episode the way an Xvfb display
is, so reset gives each episode a fresh working folder (task paths are
relative to it) and runs the task's file and launch steps there; snapshots
of whole VMs are the VM-server backend's business. Input goes through pyautogui
and Unicode SendInput (actors.backends.windows.input), the tree through UI
Automation on its COM thread (actors.backends.windows.uia).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import anyio

from protocols import Acted, Action, Task, UIElement, Viewport, Wait
from runtime.errors import Refused

from actors.backends.input_plan import Plan, StepError
from actors.normalize import uia as normalize_uia
from actors.backends.files import read_state
from actors.backends.screenshots import Screen
from actors.backends.treewalk import Walk, WalkLimits
from actors.backends.windows import input as win_input
from actors.backends.windows.uia import ComThread, capture
from actors.errors import ConfigError
from actors.backends.x11.setup import CreateFile, CreateFolder, Launch, Sleep, home_path, parse_steps

SUPPORTED_STEPS = (CreateFile, CreateFolder, Launch, Sleep)


class WindowsDesktop:
    def __init__(self, *, walk_limits: WalkLimits = WalkLimits(max_nodes=5000, seconds=8.0)) -> None:
        self.screen = Screen()
        self.com = ComThread()
        self.walk_limits = walk_limits
        self.home: Path | None = None
        self.last_tree: UIElement | None = None

    async def reset(self, task: Task, attempt: int) -> None:
        steps = parse_steps(task.raw_config.get("config", []))
        unsupported = sorted({type(s).__name__ for s in steps if not isinstance(s, SUPPORTED_STEPS)})
        if unsupported:
            raise ConfigError(f"the Windows backend does not run setup steps of type {', '.join(unsupported)}")
        self.close()
        self.home = Path(tempfile.mkdtemp(prefix="troupe-episode-"))
        for step in steps:
            match step:
                case CreateFile(path=path, content=content):
                    home_path(self.home, path).write_text(content, encoding="utf-8")
                case CreateFolder(path=path):
                    home_path(self.home, path).mkdir(parents=True, exist_ok=True)
                case Launch(command=command):
                    subprocess.Popen(command, cwd=self.home)
                case Sleep(seconds=seconds):
                    await anyio.sleep(seconds)

    async def act(self, step: int, action: Action) -> Acted:
        began = anyio.current_time()
        frame = await anyio.to_thread.run_sync(self.screen.grab_sync)
        try:
            calls = win_input.calls(Plan(frame.width, frame.height, self._find).ops(action))
        except StepError as exc:
            return Acted(error=str(exc))
        await anyio.to_thread.run_sync(win_input.send, calls)
        acted = anyio.current_time()
        settle = 0.0 if isinstance(action, Wait) else await self.screen.settle()
        return Acted(duration=acted - began, settle=settle)

    async def inspect(self, spec: dict[str, Any]) -> dict[str, Any]:
        if self.home is None:
            raise Refused("the desktop has not been reset to a task yet")
        return read_state(self.home, spec)

    async def screenshot(self) -> tuple[bytes, Viewport]:
        return await self.screen.screenshot()

    async def tree(self) -> UIElement | None:
        raw = await capture(self.com, Walk(self.walk_limits))
        self.last_tree = normalize_uia.normalize(raw)
        return self.last_tree

    async def details(self) -> dict[str, Any]:
        def foreground() -> dict[str, Any]:  # pragma: no cover - needs Windows
            import uiautomation as auto

            window = auto.GetForegroundControl()
            if window is None:
                return {}
            return {"window_title": window.Name or None, "app_name": _process_name(window.ProcessId)}

        return await self.com.call(foreground)

    def _find(self, node_id: str) -> UIElement | None:
        return self.last_tree.find(node_id) if self.last_tree is not None else None

    def close(self) -> None:
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None


@functools.lru_cache(maxsize=256)
def _process_name(pid: int) -> str | None:  # pragma: no cover - needs Windows
    out = subprocess.run(["tasklist", "/FI", f"PID eq {pid}", "/FO", "CSV", "/NH"], capture_output=True, text=True)
    first = out.stdout.strip().split(",")[0].strip('"')
    return first or None
