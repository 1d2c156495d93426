"""The Linux desktop suite: WAA-style tasks on a fresh Xvfb desktop, judged by OS state.

Each task is written the way Windows Agent Arena writes its own: an id, an
instruction, a domain, a `config` list of setup steps (actors.backends.x11.setup)
and an `evaluator` with the checks (actors.backends.files) the machine's state must
pass at the end. The applications are Debian's and light: Mousepad (text
editor), xterm with bash (the shell, the file system, settings files) and
galculator (calculator); scripts/setup.sh installs them.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from protocols import Task

from bench.suites.desktop.checker import OSStateChecker
from actors.backends.x11.node import build
from bench.config import RunConfig, option
from bench.suites.base import Suite


def _editor(path: str, content: str = "") -> list[dict[str, Any]]:
    return [
        {"type": "create_file", "parameters": {"path": path, "content": content}},
        {"type": "open", "parameters": {"path": path}},
        {"type": "wait_window", "parameters": {"title": path}},
    ]


_TERMINAL = [
    {"type": "launch", "parameters": {"command": ["xterm", "-T", "Terminal", "-e", "bash", "--norc"]}},
    {"type": "wait_window", "parameters": {"title": "Terminal"}},
]


def _file(path: str, content: str) -> dict[str, Any]:
    return {"type": "create_file", "parameters": {"path": path, "content": content}}


TASKS: list[dict[str, Any]] = [
    {
        "id": "editor-write-note", "domain": "text_editor",
        "instruction": "Write 'Hello from troupe' in notes.txt with the text editor and save it.",
        "config": _editor("notes.txt"),
        "evaluator": {"checks": [{"type": "file_content", "path": "notes.txt", "expected": "Hello from troupe"}]},
    },
    {
        "id": "editor-append-line", "domain": "text_editor",
        "instruction": "Add the line 'call mom' at the end of todo.txt and save it.",
        "config": _editor("todo.txt", "buy milk\n"),
        "evaluator": {"checks": [{"type": "file_content", "path": "todo.txt", "expected": "buy milk\ncall mom"}]},
    },
    {
        "id": "editor-unicode-greeting", "domain": "text_editor",
        "instruction": "Write 'Grüße aus 東京 ✓' in greeting.txt with the text editor and save it.",
        "config": _editor("greeting.txt"),
        "evaluator": {"checks": [{"type": "file_content", "path": "greeting.txt", "expected": "Grüße aus 東京 ✓"}]},
    },
    {
        "id": "editor-replace-word", "domain": "text_editor",
        "instruction": "In report.txt, replace 'colour' with 'color' everywhere and save it.",
        "config": _editor("report.txt", "The colour of the sky.\nA colourful day.\n"),
        "evaluator": {"checks": [{"type": "file_content", "path": "report.txt",
                                  "expected": "The color of the sky.\nA colorful day."}]},
    },
    {
        "id": "files-create-folder", "domain": "file_system",
        "instruction": "Create a folder named 'projects' in the home folder.",
        "config": _TERMINAL,
        "evaluator": {"checks": [{"type": "folder_exists", "path": "projects"}]},
    },
    {
        "id": "files-rename", "domain": "file_system",
        "instruction": "Rename 'draft.txt' to 'final.txt' in the home folder.",
        "config": [_file("draft.txt", "version 1\n"), *_TERMINAL],
        "evaluator": {"checks": [{"type": "absent", "path": "draft.txt"},
                                 {"type": "file_content", "path": "final.txt", "expected": "version 1"}]},
    },
    {
        "id": "files-copy-into-folder", "domain": "file_system",
        "instruction": "Copy 'report.txt' into the folder 'backup'.",
        "config": [_file("report.txt", "quarterly numbers\n"),
                   {"type": "create_folder", "parameters": {"path": "backup"}}, *_TERMINAL],
        "evaluator": {"checks": [{"type": "file_content", "path": "backup/report.txt", "expected": "quarterly numbers"},
                                 {"type": "file_content", "path": "report.txt", "expected": "quarterly numbers"}]},
    },
    {
        "id": "settings-git-user-name", "domain": "settings",
        "instruction": "Set the git user name to 'Ada Lovelace'.",
        "config": _TERMINAL,
        "evaluator": {"checks": [{"type": "ini_value", "path": ".gitconfig", "section": "user", "key": "name",
                                  "expected": "Ada Lovelace"}]},
    },
    {
        "id": "settings-editor-autosave", "domain": "settings",
        "instruction": "Turn autosave on: in settings.ini, set autosave to true in the [editor] section and save it.",
        "config": _editor("settings.ini", "[editor]\nautosave = false\ntab_width = 4\n"),
        "evaluator": {"checks": [{"type": "ini_value", "path": "settings.ini", "section": "editor",
                                  "key": "autosave", "expected": "true"}]},
    },
    {
        "id": "calculator-product", "domain": "calculator",
        "instruction": "Use the calculator to compute 12 × 34, then save the result in answer.txt in the home folder.",
        "config": [{"type": "launch", "parameters": {"command": ["galculator"]}},
                   {"type": "wait_window", "parameters": {"title": "galculator"}}, *_TERMINAL],
        "evaluator": {"checks": [{"type": "file_content", "path": "answer.txt", "expected": "408"}]},
    },
]


def to_task(spec: dict[str, Any]) -> Task:
    return Task(task_id=spec["id"], instruction=spec["instruction"], domain=spec["domain"],
                raw_config=spec, evaluation_spec=spec["evaluator"])


class DesktopOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    task: Annotated[list[str], option("desktop: run only these tasks (default: all)", resumable=True)] = []


class DesktopSuite(Suite):
    name = "desktop"
    Options = DesktopOptions
    flag_prefix = "desktop-"
    default_agent = "desktop-scripted"
    node_app = "actors.backends.x11.node:build"

    def __init__(self, tasks: list[Task], chosen: list[str] | None = None) -> None:
        self.tasks = tasks
        self.chosen = chosen or []

    @classmethod
    def from_config(cls, config: RunConfig) -> DesktopSuite:
        return cls([to_task(spec) for spec in TASKS], config.options.task)

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.tasks if domain is None or t.domain == domain]

    def selection(self) -> list[Task]:
        return [self.load_task(task_id) for task_id in self.chosen] or self.tasks

    def checker(self) -> OSStateChecker:
        return OSStateChecker()

    def vm_actors(self):
        return build
