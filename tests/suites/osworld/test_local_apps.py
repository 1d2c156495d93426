"""OSWorld's no-download vlc, gimp, libreoffice_impress and multi_apps tasks with no VM: each episode on
a fresh desktop of troupe's Linux server in OSWorld's dialect, with Debian's VLC, GIMP and LibreOffice
Impress, the shared task files as they are (read only). A do-nothing agent gets the reference's verdict
for the untouched state, an oracle reaching the solved state through the server's own endpoints (commands,
uploads, launches) scores 1, an infeasible task scores 1 only when the agent says Fail."""

from __future__ import annotations

import functools
import shutil

import httpx
import pytest

from actors.agent import Agent
from actors.backends.waa.client import TOKEN_HEADER, Retry
from actors.backends.waa.commands import command
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.suites.osworld.catalog import Catalog
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.node import LOCAL, actors_for, osworld_backend
from protocols import Decide, Decision, Done, ErrorKind, Fail
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.paths import ROOT

OSWORLD = ROOT.parent / "shared" / "osworld" / "evaluation_examples"
APPS = {"vlc": "vlc", "gimp": "gimp", "libreoffice_impress": "soffice", "multi_apps": "sar"}
"""Domain -> the program its tasks need on this machine (scripts/setup.sh installs them)."""

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not OSWORLD.is_dir(), reason="no shared OSWorld data")]


def requires(domain: str):
    program = APPS[domain]
    return pytest.mark.skipif(shutil.which(program) is None,
                              reason=f"{program} is not installed "
                                     "(scripts/setup.sh --osworld-apps installs Debian's as root)")


VLCRC = "~/.config/vlc/vlcrc"
GIMPRC = "~/.config/GIMP/2.10"
XCU = "~/.config/libreoffice/4/user/registrymodifications.xcu"
AUTOSAVE = ('<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall" '
            'oor:op="fuse"><value>3</value></prop></item>')

SLIDE_PANE = ("pyautogui.press('f10'); time.sleep(0.3); pyautogui.press('right', presses=2, interval=0.1); "
              "time.sleep(0.3); pyautogui.press('down', presses=11, interval=0.1); pyautogui.press('enter')")
"""View > Slide Pane from the keyboard, which the task's setup used to close it."""


def quit_program(name: str) -> str:
    """Quit `name` on this desktop and wait until it has gone. The server's pkill reaches only this
    desktop's processes; pgrep would see other desktops' too (another test's, another run's)."""
    return f"pkill -x {name}; while pkill -0 -x {name}; do sleep 0.1; done"


def vlc_option(line: str) -> list[tuple[str, str]]:
    """VLC quit, then its vlcrc holding the option, as its preferences dialog saves it. The file is
    uploaded, not written by a command: the server reads /home/user in a command as this session's home,
    and is_vlc_recordings_folder wants the text /home/user/Desktop that OSWorld's VM has there."""
    return [("sh", quit_program("vlc")), ("upload", line + "\n")]


def gimp_setting(file: str, line: str) -> list[tuple[str, str]]:
    """GIMP quit, the setting added to its config, GIMP started again to read it (it writes it back on quit)."""
    return [("sh", f"{quit_program('gimp-2.10')}; "
                   f"mkdir -p {GIMPRC}; echo '{line}' >> {GIMPRC}/{file}"), ("launch", "gimp")]


SOLUTIONS: dict[str, list[tuple[str, str]]] = {
    "vlc/9195653c-f4aa-453d-aa95-787f6ccfaae9": vlc_option("qt-max-volume=200"),
    "vlc/d06f0d4d-2cd5-4ede-8de9-598629438c6e": vlc_option("qt-slider-colours=0;0;0;20;20;20;40;40;40;60;60;60"),
    "vlc/a5bbbcd5-b398-4c91-83d4-55e1e31bbb81": vlc_option("qt-minimal-view=1"),
    "vlc/5ac2891a-eacd-4954-b339-98abba077adb": vlc_option("play-and-exit=0"),
    "vlc/f3977615-2b45-4ac5-8bba-80c17dbe2a37": vlc_option("one-instance-when-started-from-file=0"),
    "vlc/215dfd39-f493-4bc3-a027-8a97d72c61bf": vlc_option("qt-bgcone=0"),
    "vlc/8ba5ae7a-5ae5-4eab-9fcc-5dd4fe3abf89": vlc_option("input-record-path=/home/user/Desktop"),
    "gimp/d52d6308-ec58-42b7-a2c9-de80e4837b2b": gimp_setting("sessionrc", "(hide-docks yes)"),
    "gimp/7b7617bd-57cc-468e-9c91-40c4ec2bcb3d": gimp_setting("gimprc", "(undo-levels 100)"),
    "gimp/7767eef2-56a3-4cea-8c9f-48c070c7d65b": gimp_setting("gimprc", '(theme "Light")'),
    "libreoffice_impress/2cd43775-7085-45d8-89fa-9e35c0a915cf": [
        ("sh", f"{quit_program('soffice.bin')}; "
               f"sed -i 's#</oor:items>#{AUTOSAVE}</oor:items>#' {XCU}")],
    "libreoffice_impress/ef9d12bd-bcee-4ba0-a40e-918400f43ddf": [("keys", SLIDE_PANE)],
    "multi_apps/937087b6-f668-4ba6-9110-60682ee33441": [
        ("sh", "xdg-mime default vlc.desktop " + " ".join(f"video/{t}" for t in ("mp4", "x-matroska", "webm")))],
    "multi_apps/2373b66a-092d-44cb-bfd7-82e86e7a3b4d": [("sh", "sar -u 1 30 > ~/Desktop/System_Resources_Report.txt")],
}


class Oracle:
    """Per task: says Done at once (`solve` False), or reaches the solved state and says Done; says Fail
    on infeasible tasks when `solve`."""

    def __init__(self, backend, solve: bool) -> None:
        self.backend, self.solve = backend, solve

    async def decide(self, request: Decide) -> Decision:
        if not self.solve:
            return Decision(action=Done())
        if request.task.evaluation_spec.get("func") == "infeasible":
            return Decision(action=Fail(reason="this cannot be done here"))
        server = self.backend.server
        async with httpx.AsyncClient(headers={TOKEN_HEADER: server.token}, timeout=120) as http:
            for kind, text in SOLUTIONS[request.task.task_id]:
                if kind == "sh":
                    reply = await http.post(f"{server.url}/execute", json={"command": text, "shell": True})
                elif kind == "keys":
                    reply = await http.post(f"{server.url}/execute", json={"command": command(text)})
                elif kind == "upload":
                    reply = await http.post(f"{server.url}/setup/upload", data={"file_path": VLCRC},
                                            files={"file_data": ("vlcrc", text.encode())})
                else:
                    reply = await http.post(f"{server.url}/setup/launch", json={"command": text, "shell": True})
                reply.raise_for_status()
        return Decision(action=Done())


async def run(tasks, solve: bool):
    backend = osworld_backend(LOCAL, probe=Retry(attempts=20, backoff=0.2), settle_timeout=0.5)
    runner = EpisodeRunner(crew=CrewFactory(agent=lambda: Agent(Oracle(backend, solve)),
                                            evaluator=lambda: Evaluator(OSWorldChecker())),
                           vm_slot=functools.partial(run_local_host, lambda: actors_for(backend)),
                           limits=Limits(call_seconds=120), max_attempts=1)
    return {result.task_id: result for result in await runner.run(tasks)}


def domain_tasks(domain: str) -> dict:
    listed = [line.split()[0] for line in (OSWORLD.parent / "no_download_tasks.txt").read_text().splitlines()
              if line.startswith(f"{domain}/")]
    return {t.task_id: t for t in Catalog.load(OSWORLD).tasks if t.task_id in listed}


async def check_domain(domain: str, untouched_scores: dict[str, float], anyio_backend: str) -> None:
    """`untouched_scores`: per task the score the do-nothing agent gets, as OSWorld's evaluator scores it.

    Each domain once per event loop, as the Chrome tasks: on asyncio the oracle solves every task, on trio
    the agent leaves the untouched ones alone (both on both would double minutes of desktop applications)."""
    tasks = domain_tasks(domain)
    if anyio_backend == "asyncio":
        results = await run(list(tasks.values()), solve=True)
        unsolved = {task_id: result.reason for task_id, result in results.items() if result.score != 1.0}
        assert not unsolved
    else:
        results = await run([tasks[task_id] for task_id in untouched_scores], solve=False)
        wrong = {task_id: (result.error_kind, result.score, result.reason) for task_id, result in results.items()
                 if result.error_kind not in (ErrorKind.NONE, ErrorKind.AGENT)
                 or result.score != untouched_scores[task_id]}
        assert not wrong
    resets = sorted(result.timings.reset for result in results.values())
    print(f"\nosworld {domain} domain, fresh local desktop per episode: median reset {resets[len(resets) // 2]:.2f} s")


@requires("vlc")
async def test_the_vlc_tasks_run_on_fresh_desktops_untouched_solved_and_declared_infeasible(anyio_backend):
    """The fresh home holds the vlcrc of OSWorld's image (every option at its default): untouched, 0."""
    await check_domain("vlc", {task_id: 0.0 for task_id in SOLUTIONS
                               if task_id.startswith("vlc/")}, anyio_backend)


@requires("gimp")
async def test_the_gimp_tasks_run_on_fresh_desktops_untouched_solved_and_declared_infeasible(anyio_backend):
    """GIMP quits at evaluation (its postconfig's Ctrl+Q) and writes gimprc and sessionrc with the
    settings it holds: untouched, none of the asked ones."""
    await check_domain("gimp", {task_id: 0.0 for task_id in SOLUTIONS if task_id.startswith("gimp/")}, anyio_backend)


@requires("libreoffice_impress")
async def test_the_impress_tasks_run_on_fresh_desktops_untouched_and_solved(anyio_backend):
    """The fresh home holds LibreOffice's settings as OSWorld's image has them (no Tip of the Day), so the
    slide-panel task's setup closes the panel with its keys: untouched, both score 0."""
    await check_domain("libreoffice_impress", {task_id: 0.0 for task_id in SOLUTIONS
                                               if task_id.startswith("libreoffice_impress/")}, anyio_backend)


@requires("multi_apps")
async def test_the_multi_apps_tasks_run_on_fresh_desktops_untouched_solved_and_declared_infeasible(anyio_backend):
    """With VLC this machine's only video player, xdg-mime already names it for every video type, so the
    reference scores the untouched default-player task 1 here (on OSWorld's Ubuntu, Totem holds them)."""
    await check_domain("multi_apps", {"multi_apps/2373b66a-092d-44cb-bfd7-82e86e7a3b4d": 0.0,
                                      "multi_apps/937087b6-f668-4ba6-9110-60682ee33441": 1.0}, anyio_backend)
