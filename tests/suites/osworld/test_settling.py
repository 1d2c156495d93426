"""The command that finds settings writes still pending, run by a real shell on real processes: a process
whose thread is named as LibreOffice's settings writer (a copy of `sleep` named configmgrWriter) counts
for the desktop whose display its environment names, and never for another episode's desktop on the same
machine. That LibreOffice itself is waited for is proven on the real application in
test_local_cache.py (the presenter-console task)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.suites.osworld.settling import PENDING


@pytest.fixture
def writer(tmp_path: Path):
    """A process whose only thread is named configmgrWriter, on display :4711."""
    program = tmp_path / "configmgrWriter"
    shutil.copy(shutil.which("sleep"), program)
    process = subprocess.Popen([str(program), "30"], env={**os.environ, "DISPLAY": ":4711"})
    yield process
    process.kill()
    process.wait()


def pending_on(display: str) -> list[str]:
    done = subprocess.run(["sh", "-c", PENDING], env={**os.environ, "DISPLAY": display}, capture_output=True,
                          text=True, timeout=30, check=True)
    return done.stdout.split()


def test_a_pending_writer_counts_on_its_own_desktop(writer):
    assert pending_on(":4711") == ["configmgrWriter"]


def test_a_pending_writer_on_another_desktop_does_not_count(writer):
    assert pending_on(":4712") == []


def test_nothing_is_pending_once_the_writer_is_gone(writer):
    writer.kill()
    writer.wait()
    assert pending_on(":4711") == []
