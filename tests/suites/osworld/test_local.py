"""OSWorld's tasks with no VM: each episode on a fresh desktop of troupe's Linux server in OSWorld's
dialect, the shared task files as they are (read only). A do-nothing agent gets the reference's verdict
for the untouched state, an oracle reaching the solved state through the server's own endpoints scores
1, an infeasible task scores 1 only when the agent says Fail."""

from __future__ import annotations

import httpx
import pytest

from actors.backends.waa.client import TOKEN_HEADER
from bench.suites.osworld.catalog import Catalog

from tests.osworld_servers import run_on_local_desktops
from tests.paths import ROOT

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not (ROOT.parent / "shared" / "osworld").is_dir(), reason="no shared OSWorld data")]

OSWORLD = ROOT.parent / "shared" / "osworld" / "evaluation_examples"
RENAME = "os/e0df059f-28a6-4169-924f-b9623e7184cc"
TERMINAL_SIZE = "os/13584542-872b-42d8-b299-866967b5c3ef"


async def shell(server, text: str) -> None:
    """A command run through the episode's own server, as a user at its terminal would."""
    async with httpx.AsyncClient(headers={TOKEN_HEADER: server.token}) as http:
        reply = await http.post(f"{server.url}/execute", json={"command": text, "shell": True})
    reply.raise_for_status()


SOLUTIONS = {RENAME: "mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2",
             TERMINAL_SIZE: "echo 'stty rows 43 cols 132' >> ~/.bashrc"}


async def solve(server, task) -> None:
    await shell(server, SOLUTIONS[task.task_id])


OS_TASKS = [RENAME, TERMINAL_SIZE, *(f"os/{id}" for id in (
    "a462a795-fdc7-4b23-b689-e8b6df786b78", "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa",
    "fe41f596-a71b-4c2f-9b2f-9dcd40b568c3", "c288e301-e626-4b98-a1ab-159dcb162af5",
    "4783cc41-c03c-4e1b-89b4-50658f642bd5"))]
"""The os domain's tasks that need nothing from outside this machine: two feasible, five infeasible."""


async def test_the_os_tasks_run_on_fresh_desktops_untouched_solved_and_declared_infeasible():
    """Every task set up and solved (or declared infeasible); the untouched state for the feasible ones
    and one infeasible one (an infeasible task's untouched verdict is the checker's, whatever the VM)."""
    tasks = {t.task_id: t for t in Catalog.load(OSWORLD).tasks if t.task_id in OS_TASKS}
    assert sorted(tasks) == sorted(OS_TASKS)
    untouched = await run_on_local_desktops([tasks[RENAME], tasks[TERMINAL_SIZE], tasks[OS_TASKS[2]]])
    for task_id, result in untouched.items():
        assert result.error_kind.value != "environment" and result.score == 0.0, (task_id, result.reason)
    solved = await run_on_local_desktops(list(tasks.values()), solve)
    for task_id, result in solved.items():
        assert result.success and result.score == 1.0, (task_id, result.reason)
    resets = sorted(r.timings.reset for r in [*untouched.values(), *solved.values()])
    print(f"\nosworld os domain, fresh local desktop per episode: median reset {resets[len(resets) // 2]:.2f} s")
