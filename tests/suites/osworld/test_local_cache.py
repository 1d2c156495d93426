"""OSWorld's tasks that need its task-file cache, on fresh local desktops with no VM: the test fills a
cache folder in OSWorld's layout with files it makes in the formats the tasks name (the real ones live
in a data set this machine cannot reach), and per domain a task runs its set-up (the download from the
cache, LibreOffice opening the file), then the oracle reaches the solved state through the episode's own
server (the application quit, the solved file uploaded where the task reads it) and scores 1, while the
untouched state scores 0: a Calc, a Writer and an Impress task, a Thunderbird one whose profile comes
from the cache as a tarball, an os one whose check script the cache holds, a multi_apps one, and a VLC
one read from VLC's web interface. Each domain once per event loop, as test_local_apps: on asyncio the oracle
solves, on trio the agent leaves the task alone."""

from __future__ import annotations

import contextlib
import functools
import shutil
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

from actors.backends.waa.client import TOKEN_HEADER
from bench.suites.osworld.catalog import Catalog
from bench.suites.osworld.needs import cache_name, getter_specs, steps
from protocols import ErrorKind, Task

from bench.suites.osworld.vlc_status import STATUS, VLC_WEB_PASSWORD
from tests.media_files import video
from tests.osworld_servers import run_on_local_desktops
from tests.task_files import document, slides, tar_gz, xlsx
from tests.paths import ROOT

OSWORLD = ROOT.parent / "shared" / "osworld" / "evaluation_examples"

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(not OSWORLD.is_dir(), reason="no shared OSWorld data"),
              pytest.mark.timeout(300)]  # LibreOffice's first start on a fresh profile takes 10-15 s at load ~10


def requires(program: str):
    return pytest.mark.skipif(shutil.which(program) is None,
                              reason=f"{program} is not installed (scripts/setup.sh --osworld-apps installs it)")


LEVELS = [["Student", "Level", "Term", "Group", "Tutor"],
          *([f"S{n}", "A" if n < 15 else "B", 1 + n % 3, "G1" if n % 2 else "G2", "Kim"] for n in range(1, 30))]
"""A sheet like the task's Student_Level_Fill_Blank.xlsx, solved: no blank cell in B1:E30."""


def blanked(rows: list[list[object]]) -> list[list[object]]:
    """The task's start: below the header, every third row's B:E left blank (the value is the one above)."""
    return [row if index < 2 or index % 3 else [row[0], None, None, None, None] for index, row in enumerate(rows)]


REFERENCE = ("Steinberg, F. M., Bearden, M. M., & Keen, C. L. (2003). Cocoa and chocolate flavonoids: Implications "
             "for cardiovascular health. Journal of the American Dietetic Association, 103(2), 215-223. "
             "doi: 10.1053/jada.2003.50028")
ESSAY = ["Essay writing", "First paragraph.", "Second paragraph.", "Third paragraph.", "Cocoa is good for you {}.",
         "References", "[1] Another source."]
"""A document like the task's Essay_Writing_English_for_uni.docx: its start marks "<add here>"."""

def essay(mark: str, *added: str) -> bytes:
    return document(*ESSAY[:4], ESSAY[4].format(mark), *ESSAY[5:], *added)


FILL_BLANKS = "libreoffice_calc/01b269ae-2111-4a07-81fd-3fcd711993b0"
ADD_REFERENCE = "libreoffice_writer/adf5e2c3-64c7-4644-b7b6-d2f0167927e7"
GREEN_SLIDE = "libreoffice_impress/9cf05d24-6bd9-4dae-8967-f67d88f5d38a"
TALK = ("Forests of the north", "Where they grow", "What lives there")
NEW_MODELS = "multi_apps/deec51c9-3b1e-4b9e-993c-4776f20e8bb2"
MODELS = [["Title", "Authors", "Link"], ["A new foundation model", "Ann, Bob", "2310.00001"],
          ["Scaling laws again", "Kim", "2310.00002"], ["Instruction tuning at scale", "Lee, Wu", "2310.00003"],
          ["Small models, big data", "Roy", "2310.00004"]]
"""The sheet the task asks for (its sheet_fuzzy rule reads A2:C5), in a file whose name has spaces."""
APPEND_BR = "os/5ced85fc-fa1a-4217-95fd-0fb530545ce2"
EVAL_BR = (b"#!/bin/bash\n# like the task's eval.sh: output.txt in the folder the terminal starts in\n"
           b"if [ \"$(cat output.txt 2>/dev/null)\" = \"$(printf '1<br/>\\n2<br/>\\n3<br/>')\" ]; then\n"
           b"  echo 'Success: The task has been completed correctly.'\nelse\n  echo 'Failure.'\nfi\n")
NO_QUOTE_INDENT = "thunderbird/f201fbc3-44e6-46fc-bcaa-432f9815454c"
PROFILE = ".thunderbird/t5q2a5hp.default-release"
PROFILES_INI = (b"[Profile0]\nName=default-release\nIsRelative=1\nPath=t5q2a5hp.default-release\nDefault=1\n\n"
                b"[General]\nStartWithLastProfile=1\nVersion=2\n")
PREFS = ('// Mozilla User Preferences\n\nuser_pref("mail.identity.id1.fullName", "Anonym");\n'
         'user_pref("mail.identity.id1.useremail", "anonym@example.org");\n')
"""A profile like the task's thunderbird-profile.tar.gz (one identity); solved, replies do not quote."""
PLAY_SONG = "vlc/59f21cfb-0120-4326-b255-a5b827b38967"
SONG = "Rick Astley - Never Gonna Give You Up (Official Music Video).mp4"
CLIP = video(120, size=(160, 120), fps=2)
"""A minute of video (still playing when the evaluation reads VLC's status), a few dozen KiB."""


class Made:
    """One task's cache files (by the task's own names: a download's VM path, a cloud_file's dest), and
    the solved file the oracle uploads to the path the task's result getter reads."""

    def __init__(self, start: dict[str, bytes], gold: dict[str, bytes], solved: bytes) -> None:
        self.start, self.gold, self.solved = start, gold, solved


MADE: dict[str, Made] = {
    FILL_BLANKS: Made(start={"Student_Level_Fill_Blank.xlsx": xlsx(blanked(LEVELS))},
                      gold={"Student_Level_Fill_Blank_gold.xlsx": xlsx(LEVELS)}, solved=xlsx(LEVELS)),
    ADD_REFERENCE: Made(start={"Essay_Writing_English_for_uni.docx": essay("<add here>")},
                        gold={"Essay_Writing_English_for_uni_Gold.docx": essay("[2]", f"[2] {REFERENCE}")},
                        solved=essay("[2]", f"[2] {REFERENCE}")),
    NEW_MODELS: Made(start={"New Large Language Models.xlsx": xlsx(MODELS[:1])},
                     gold={"New Large Language Models Gold.xlsx": xlsx(MODELS)}, solved=xlsx(MODELS)),
    APPEND_BR: Made(start={"eval.sh": EVAL_BR}, gold={}, solved=b""),
    NO_QUOTE_INDENT: Made(
        start={"thunderbird-profile.tar.gz": tar_gz({".thunderbird/profiles.ini": PROFILES_INI,
                                                     f"{PROFILE}/prefs.js": PREFS.encode()})},
        gold={}, solved=(PREFS + 'user_pref("mail.identity.id1.auto_quote", false);\n').encode()),
    PLAY_SONG: Made(start={SONG: CLIP}, gold={}, solved=b""),
    GREEN_SLIDE: Made(start={"214_9.pptx": slides(*TALK)}, gold={"214_9_Gold.pptx": slides(*TALK, background="00A933")},
                      solved=slides(*TALK, background="00A933")),
}


def fill_cache(cache: Path, task: Task, made: Made) -> None:
    """The task's folder in OSWorld's cache layout: <id>/<uuid5(url)>_<name> per download, <id>/<dest>
    per cloud_file."""
    folder = cache / task.task_id.split("/", 1)[1]
    folder.mkdir(parents=True)
    for step in steps(task):
        for file in step["parameters"].get("files", []) if step["type"] == "download" else []:
            (folder / cache_name(file["url"], file["path"])).write_bytes(made.start[Path(file["path"]).name])
    for spec in getter_specs(task):
        if spec["type"] == "cloud_file":
            (folder / spec["dest"]).write_bytes(made.gold[spec["dest"]])


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {task.task_id: task for task in Catalog.load(OSWORLD).tasks if task.task_id in MADE}


@pytest.fixture(scope="module")
def cache(tasks, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("osworld-cache")
    for task_id, task in tasks.items():
        fill_cache(folder, task, MADE[task_id])
    return folder


def quits(program: str) -> str:
    return f"pkill -x {program}; while pkill -0 {program}; do sleep 0.1; done"


async def upload_solved(server, task: Task, program: str) -> None:
    """The oracle: `program` quit (so neither the postconfig's save nor the program's own exit writes its
    copy over it), then the solved file where the task's result getter reads it."""
    path = task.evaluation_spec["result"]["path"]
    async with httpx.AsyncClient(headers={TOKEN_HEADER: server.token}, timeout=120) as http:
        (await http.post(f"{server.url}/execute", json={"command": quits(program), "shell": True})
         ).raise_for_status()
        (await http.post(f"{server.url}/setup/upload", data={"file_path": path},
                         files={"file_data": (Path(path).name, MADE[task.task_id].solved)})).raise_for_status()


async def in_terminal(server, task: Task, command: str) -> None:
    """The oracle of a terminal task: `command` run in the session, as typed at its terminal."""
    async with httpx.AsyncClient(headers={TOKEN_HEADER: server.token}, timeout=120) as http:
        (await http.post(f"{server.url}/execute", json={"command": command, "shell": True})).raise_for_status()


async def play_in_vlc(server, task: Task) -> None:
    """The oracle of the VLC task: VLC quit and started again on the song (as double-clicking it would),
    then VLC's own web interface asked until it says it plays (at most 30 s)."""
    async with httpx.AsyncClient(headers={TOKEN_HEADER: server.token}, timeout=120) as http:
        (await http.post(f"{server.url}/execute", json={"command": quits("vlc"), "shell": True})).raise_for_status()
        (await http.post(f"{server.url}/setup/launch", json={
            "command": f"vlc --no-audio --no-video-title-show '/home/user/Desktop/{SONG}'", "shell": True})
         ).raise_for_status()
    async with httpx.AsyncClient(timeout=5) as web:
        with anyio.fail_after(30):
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    reply = await web.get(f"{server.vlc}{STATUS}", auth=("", VLC_WEB_PASSWORD))
                    if b"<state>playing</state>" in reply.content:
                        return
                await anyio.sleep(0.2)


async def check(task: Task, cache: Path, anyio_backend: str, quit: str = "soffice.bin",
                solve: Callable | None = None) -> None:
    """On asyncio the oracle solves the task (1.0: by `solve`, else by uploading the solved file once `quit`
    has quit), on trio the untouched state scores 0."""
    oracle = (solve or functools.partial(upload_solved, program=quit)) if anyio_backend == "asyncio" else None
    solving = oracle is not None
    (result,) = (await run_on_local_desktops([task], oracle, call_seconds=120, cache=cache)).values()
    assert result.error_kind in (ErrorKind.NONE, ErrorKind.AGENT), result.reason
    assert result.score == (1.0 if solving else 0.0), result.reason
    print(f"\nosworld {task.task_id} from the cache, {'solved' if solving else 'untouched'}: {result.reason}; "
          f"reset {result.timings.reset:.2f} s")


@requires("localc")
async def test_a_calc_task_downloads_from_the_cache_opens_in_calc_and_compare_table_scores_it(
        tasks, cache, anyio_backend):
    await check(tasks[FILL_BLANKS], cache, anyio_backend)


@requires("lowriter")
async def test_a_writer_task_downloads_from_the_cache_opens_in_writer_and_compare_docx_files_scores_it(
        tasks, cache, anyio_backend):
    await check(tasks[ADD_REFERENCE], cache, anyio_backend)


@requires("loimpress")
async def test_an_impress_task_downloads_from_the_cache_opens_in_impress_and_compare_pptx_files_scores_it(
        tasks, cache, anyio_backend):
    await check(tasks[GREEN_SLIDE], cache, anyio_backend)


@requires("thunderbird")
async def test_a_thunderbird_task_unpacks_its_profile_from_the_cache_and_check_thunderbird_prefs_scores_it(
        tasks, cache, anyio_backend):
    await check(tasks[NO_QUOTE_INDENT], cache, anyio_backend, quit="thunderbird")


async def test_an_os_task_downloads_its_check_from_the_cache_at_evaluation_and_it_scores_the_terminals_work(
        tasks, cache, anyio_backend):
    """The check script comes from the cache in the postconfig, and the getter runs it."""
    await check(tasks[APPEND_BR], cache, anyio_backend,
                solve=functools.partial(in_terminal, command="printf '1\\n2\\n3' | sed 's|$|<br/>|' > output.txt"))


@requires("localc")
async def test_a_multi_apps_task_with_spaces_in_its_file_names_is_scored_by_sheet_fuzzy(tasks, cache, anyio_backend):
    await check(tasks[NEW_MODELS], cache, anyio_backend)


@requires("vlc")
async def test_a_vlc_task_downloads_its_video_from_the_cache_and_is_vlc_playing_reads_vlcs_web_interface(
        tasks, cache, anyio_backend):
    """VLC starts with its web interface on (the home's vlcrc, as on OSWorld's image): untouched it plays
    nothing (state stopped: 0); playing the song scores 1."""
    await check(tasks[PLAY_SONG], cache, anyio_backend, solve=play_in_vlc)
