"""A Linux server killed with SIGKILL leaves nothing behind: its desktop's processes end, those that
left its process tree too (AT-SPI's own dbus-daemon, a program started with setsid), and its home and
its shims folder are deleted, by the session's reaper (actors.backends.x11.reaper)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from actors.backends.waa.client import TOKEN_HEADER
from actors.backends.x11 import reaper
from runtime.process_tree import processes_with_environ

from tests.waa_servers import start_linux_server


def command_lines(home: str) -> list[bytes]:
    lines = []
    for pid in processes_with_environ(b"HOME", {home.encode()}):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                lines.append(cmdline.read().replace(b"\0", b" "))
        except OSError:
            continue
    return lines


def test_a_sigkilled_osworld_server_leaves_no_process_and_no_folder_behind():
    server = start_linux_server(flags=("--osworld", "--allow-commands"))
    try:
        with httpx.Client(base_url=server.url, headers={TOKEN_HEADER: server.token}, timeout=60) as http:
            def run(command: str) -> str:
                return http.post("/execute", json={"command": command, "shell": True}).json()["output"].strip()

            home, shims = run("echo $HOME"), Path(run("echo $PATH").split(":")[0])
            run("setsid sleep 300 >/dev/null 2>&1 < /dev/null &")
            assert http.get("/accessibility").status_code == 200
        left_the_tree = [line for line in command_lines(home) if b"accessibility.conf" in line or b"sleep 300" in line]
        assert len(left_the_tree) == 2, command_lines(home)
        assert Path(home).is_dir() and shims.name.startswith("troupe-server-bin-") and shims.is_dir()
    finally:
        server.process.kill()
        server.process.wait()
    deadline = time.monotonic() + reaper.GRACE + 10
    while (command_lines(home) or Path(home).exists() or shims.exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert command_lines(home) == [] and not Path(home).exists() and not shims.exists()


def test_the_reaper_deletes_only_a_sessions_home(tmp_path, capsys):
    assert reaper.main([str(tmp_path)]) == 2
    assert tmp_path.is_dir()
    assert f"reaper: {tmp_path} is not a session's home" in capsys.readouterr().err
