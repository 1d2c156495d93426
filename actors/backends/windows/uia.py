"""The UI Automation tree, read through `uiautomation` on one dedicated COM thread.

COM objects belong to the thread that initialized COM, and a UIA call can
block for minutes on a hung application, so every UIA call of the node runs
on one thread of its own (COM initialized there, once). The event loop waits
for the result in a worker it can abandon; the walk itself (actors.backends.treewalk)
checks its deadline and cancel flag at every node, so an abandoned walk
stops after its current call instead of running on.

`read_control` gives the raw node format of actors.normalize.uia; the
recorder (actors.backends.windows.record) saves exactly that as fixture data.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from typing import Any, Callable

import anyio

from actors.backends.treewalk import Walk


def read_control(control: Any) -> dict[str, Any]:  # pragma: no cover - needs Windows
    rect = control.BoundingRectangle
    node: dict[str, Any] = {
        "ControlType": control.ControlTypeName, "Name": control.Name, "AutomationId": control.AutomationId,
        "ClassName": control.ClassName, "BoundingRectangle": [rect.left, rect.top, rect.right, rect.bottom],
        "IsOffscreen": bool(control.IsOffscreen), "IsEnabled": bool(control.IsEnabled),
        "HasKeyboardFocus": bool(control.HasKeyboardFocus), "ProcessId": control.ProcessId,
        "FrameworkId": control.FrameworkId,
    }
    import uiautomation as auto

    value = control.GetPattern(auto.PatternId.ValuePattern)
    if value is not None:
        node["Value"] = value.Value
    return node


class ComThread:
    """Runs callables, one at a time, on a thread with COM initialized for UI Automation."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], concurrent.futures.Future] | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    def _main(self) -> None:  # pragma: no cover - needs Windows
        import uiautomation as auto

        with auto.UIAutomationInitializerInThread():
            while (job := self._jobs.get()) is not None:
                function, future = job
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(function())
                    except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
                        future.set_exception(exc)

    async def call(self, function: Callable[[], Any]) -> Any:
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name="uia-com", daemon=True)
            self._thread.start()
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._jobs.put((function, future))
        return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)

    def close(self) -> None:
        self._jobs.put(None)


async def capture(com: ComThread, walk: Walk) -> dict[str, Any]:  # pragma: no cover - needs Windows
    """The foreground window's tree (a whole desktop is mostly noise and slow to walk)."""

    def run() -> dict[str, Any]:
        import uiautomation as auto

        root = auto.GetForegroundControl() or auto.GetRootControl()
        return walk.run(root, read_control, lambda control: control.GetChildren())

    try:
        return await com.call(run)
    finally:
        walk.cancelled.set()
