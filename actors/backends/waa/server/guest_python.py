"""The Python that commands run on this desktop find, as a WAA or OSWorld VM's Python.

On those VMs, `python` is the guest's Python with pyautogui installed, and
the host's programs start with `import pyautogui` (WAA's prefix, OSWorld's
controller) even when they only ask the platform or read a file. Here, with
`--allow-commands`, such programs run for real: `install` puts a `python`
where only python3 is, and an importable `pyautogui` whose input functions
say to send input as a pyautogui-only program (which the server reads and
carries out itself, never running it as Python).
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["first_on_path", "install", "write_executable"]

PYTHON = """#!/bin/sh
exec python3 "$@"
"""

PYAUTOGUI = '''"""pyautogui as the Python programs run on this desktop see it: importable (the hosts' programs
start with `import pyautogui`), but input goes through the server's own reading of pyautogui programs,
so any other use of it says so."""

FAILSAFE = True


def __getattr__(name):
    raise NotImplementedError(f"pyautogui.{name} inside other Python: send input as a pyautogui-only program")
'''


def write_executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def first_on_path(folder: Path, env: dict[str, str]) -> None:
    if env["PATH"].split(":")[0] != str(folder):
        env["PATH"] = f"{folder}:{env['PATH']}"


def install(folder: Path, env: dict[str, str]) -> None:
    """`python` (where only python3 is installed) in `folder`, first on `env`'s PATH, and an importable
    `pyautogui` on its PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("python", path=env["PATH"]) is None:
        write_executable(folder / "python", PYTHON)
    first_on_path(folder, env)
    modules = folder / "python-modules"
    modules.mkdir(exist_ok=True)
    (modules / "pyautogui.py").write_text(PYAUTOGUI)
    env["PYTHONPATH"] = str(modules)
