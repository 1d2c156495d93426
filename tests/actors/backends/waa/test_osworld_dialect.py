"""The Linux server in OSWorld's dialect (`--osworld`), a real server process on 127.0.0.1: OSWorld's own
endpoints answered as its Flask app answers them, /home/user standing for the session's home in paths
and commands (and nothing outside the roots reached through it), the `sudo` and `apt` its tasks' setup
commands call, Ctrl+Alt+T's terminal and its text, and what it refuses without --allow-commands."""

from __future__ import annotations

import os
import subprocess
import time
from xml.etree import ElementTree

import httpx
import pytest

from actors.backends.waa.client import TOKEN_HEADER
from actors.backends.waa.commands import command
from actors.backends.waa.server.pyautogui_script import parse

from tests.waa_servers import LinuxServer, start_linux_server, stop


@pytest.fixture(scope="module")
def server():
    linux = start_linux_server(flags=("--osworld", "--allow-commands"))
    yield linux
    stop(linux)


@pytest.fixture(scope="module")
def strict():
    """The dialect without --allow-commands."""
    linux = start_linux_server(flags=("--osworld",))
    yield linux
    stop(linux)


def call(server: LinuxServer, method: str, path: str, **kwargs) -> httpx.Response:
    return httpx.request(method, server.url + path, headers={TOKEN_HEADER: server.token}, timeout=30, **kwargs)


def shell(server: LinuxServer, text: str) -> dict:
    reply = call(server, "POST", "/execute", json={"command": text, "shell": True})
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_home_user_is_the_sessions_home_in_paths_and_commands(server):
    home = shell(server, "echo $HOME")["output"].strip()
    assert home != "/home/user"
    assert shell(server, "echo hi > /home/user/Desktop/a.txt && cat ~/Desktop/a.txt")["output"] == "hi\n"
    assert call(server, "POST", "/file", data={"file_path": "/home/user/Desktop/a.txt"}).content == b"hi\n"
    upload = call(server, "POST", "/setup/upload", data={"file_path": "/home/user/Documents/b.txt"},
                  files={"file_data": ("b.txt", b"up")})
    assert upload.status_code == 200 and shell(server, "cat ~/Documents/b.txt")["output"] == "up"
    assert call(server, "POST", "/file", data={"file_path": "/home/user/../../etc/passwd"}).status_code == 403
    assert call(server, "POST", "/file", data={"file_path": "/home/username/x"}).status_code == 403


def test_sudo_runs_the_command_and_apt_installs_nothing(server):
    made = shell(server, "echo password | sudo -S mkdir ~/Desktop/todo && [ -d ~/Desktop/todo ] && echo yes")
    assert made["output"] == "yes\n"
    assert shell(server, "sudo -S apt install -y bash")["output"] == "bash is already the newest version.\n"
    missing = shell(server, "echo pw | sudo -S apt-get install no-such-package-here")
    assert missing["returncode"] == 100 and "no-such-package-here is not installed" in missing["error"]


def test_osworlds_own_endpoints(server):
    assert call(server, "GET", "/platform").text == "Linux"
    x, y = call(server, "GET", "/cursor_position").json()
    assert isinstance(x, int) and isinstance(y, int)
    assert call(server, "POST", "/window_size", data={}).status_code == 400
    assert call(server, "POST", "/window_size", data={"app_class_name": "nothing-like-it"}).status_code == 404
    assert call(server, "POST", "/wallpaper").status_code == 404
    assert call(server, "POST", "/setup/change_wallpaper", json={"path": "/home/user/none.png"}).status_code == 404
    shell(server, "printf png > ~/Pictures/w.png")
    assert call(server, "POST", "/setup/change_wallpaper", json={"path": "/home/user/Pictures/w.png"}).status_code \
        == 200
    assert call(server, "POST", "/wallpaper").content == b"png"
    python = call(server, "POST", "/run_python", json={"code": "print(6 * 7)"}).json()
    assert python["status"] == "success" and python["output"] == "42\n" and python["return_code"] == 0
    failing = call(server, "POST", "/run_python", json={"code": "raise SystemExit(3)"}).json()
    assert failing["status"] == "error" and failing["return_code"] == 3
    bash = call(server, "POST", "/run_bash_script", json={"script": "cd /home/user && pwd; echo err >&2"}).json()
    assert bash["output"].splitlines()[1] == "err" and bash["returncode"] == 0 and bash["error"] == ""
    assert call(server, "POST", "/run_bash_script", json={"script": ""}).status_code == 400
    assert call(server, "POST", "/start_recording").status_code == 501


def test_ctrl_alt_t_opens_a_terminal_whose_text_terminal_answers(server):
    assert call(server, "GET", "/terminal").json() == {"output": None, "status": "success"}
    program = "pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(1.0); pyautogui.write('echo $((6*7))'); " \
              "pyautogui.press('enter'); time.sleep(0.5)"
    assert call(server, "POST", "/execute", json={"command": command(program)}).status_code == 200
    assert call(server, "POST", "/setup/activate_window", json={"window_name": "Terminal"}).status_code == 200
    deadline = time.monotonic() + 10
    while "42" not in (output := call(server, "GET", "/terminal").json()["output"] or ""):
        assert time.monotonic() < deadline, output
        time.sleep(0.2)
    assert "echo $((6*7))" in output and "\x1b" not in output


def test_without_allow_commands_shell_python_and_bash_are_refused(strict):
    for path, body in (("/execute", {"command": "echo hi", "shell": True}), ("/run_python", {"code": "print(1)"}),
                       ("/run_bash_script", {"script": "echo hi"})):
        reply = call(strict, "POST", path, json=body)
        assert reply.status_code == 403 and "--allow-commands" in reply.json()["message"], path


def test_the_tree_is_at_spis_in_osworlds_xml(server):
    program = "pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(1.0)"  # a window that exports AT-SPI: xterm does not,
    call(server, "POST", "/execute", json={"command": command(program)})  # so the tree may hold no application
    root = ElementTree.fromstring(call(server, "GET", "/accessibility").json()["AT"])
    assert root.tag == "desktop-frame"
    tree = call(server, "GET", "/accessibility").text
    assert "https://accessibility.ubuntu.example.org/ns/state" in tree
    assert "https://accessibility.ubuntu.example.org/ns/component" in tree


def test_hotkey_takes_its_keys_as_one_list_too_as_pyautogui_does():
    """OSWorld's GIMP tasks quit GIMP with `pyautogui.hotkey(["ctrl", "q"])`."""
    assert parse('import pyautogui; pyautogui.hotkey(["ctrl", "q"])') == \
        parse("import pyautogui; pyautogui.hotkey('ctrl', 'q')") == \
        [("key_down", "ctrl"), ("key_down", "q"), ("key_up", "q"), ("key_up", "ctrl")]


def test_pkill_and_killall_reach_this_desktops_processes_only(server):
    outsider = subprocess.Popen(["sleep", "300"], env={**os.environ, "DISPLAY": ":4242"})
    try:
        shell(server, "nohup sleep 300 >/dev/null 2>&1 &")
        assert shell(server, "pgrep -x sleep | wc -l")["output"].strip() != "0"
        assert shell(server, "pkill sleep")["returncode"] == 0
        assert shell(server, "killall sleep")["returncode"] == 1  # its own are gone; none else was its
        assert outsider.poll() is None  # another display's process lives on
    finally:
        outsider.kill()
        outsider.wait()


def test_a_launched_pkill_is_this_desktops_too(server):
    outsider = subprocess.Popen(["sleep", "301"], env={**os.environ, "DISPLAY": ":4243"})
    try:
        pid = shell(server, "nohup sleep 301 >/dev/null 2>&1 & echo $!")["output"].strip()
        assert call(server, "POST", "/setup/launch", json={"command": ["pkill", "sleep"]}).status_code == 200
        deadline = time.monotonic() + 5
        while shell(server, f"kill -0 {pid} 2>/dev/null && echo alive || echo gone")["output"] != "gone\n":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert outsider.poll() is None
    finally:
        outsider.kill()
        outsider.wait()


def test_a_launched_pkill_has_run_when_its_launch_answers_so_the_next_launch_survives_it(server):
    """OSWorld's postconfigs launch `pkill vlc` and then VLC again, as two requests."""
    running = "ps -eo stat=,args= | grep -v '^Z' | grep '[s]leep 30[34]'"  # a killed one may stay a zombie
    shell(server, "nohup sleep 303 >/dev/null 2>&1 &")
    with httpx.Client(base_url=server.url, headers={TOKEN_HEADER: server.token}, timeout=30) as steps:  # one connection
        for argv in (["pkill", "-x", "sleep"], ["sleep", "304"]):
            assert steps.post("/setup/launch", json={"command": argv}).status_code == 200
    time.sleep(1.0)
    assert [line.split()[-1] for line in shell(server, running)["output"].splitlines()] == ["304"]
    shell(server, "pkill -x sleep")


def test_window_steps_find_a_window_by_its_class_as_wmctrl_x_does(server):
    """OSWorld's Thunderbird tasks close `Mail.thunderbird` by class; Debian's Thunderbird's class has a
    `-default` suffix, which is not read."""
    launched = call(server, "POST", "/setup/launch",
                    json={"command": ["xterm", "-name", "Mail", "-class", "thunderbird-default"]})
    assert launched.status_code == 200
    by_class = {"window_name": "Mail.thunderbird", "strict": True, "by_class": True}
    assert call(server, "POST", "/setup/activate_window", json=by_class).status_code == 200
    assert call(server, "POST", "/setup/activate_window",
                json={**by_class, "window_name": "Mail"}).status_code == 404  # strict: the whole class
    assert call(server, "POST", "/setup/activate_window", json={**by_class, "strict": False,
                                                                 "window_name": "thunderbird"}).status_code == 200
    assert call(server, "POST", "/setup/close_window", json=by_class).status_code == 200


def test_open_file_answers_once_the_files_window_is_up(server):
    """As OSWorld's server: the file opens in its application, and the answer waits for its window."""
    text_editor = call(server, "POST", "/execute", json={"command": "xdg-mime default mousepad.desktop text/plain",
                                                         "shell": True})
    assert text_editor.status_code == 200
    upload = call(server, "POST", "/setup/upload", data={"file_path": "/home/user/Desktop/notes_to_open.txt"},
                  files={"file_data": ("notes_to_open.txt", b"hello\n")})
    assert upload.status_code == 200
    opened = call(server, "POST", "/setup/open_file", json={"path": "/home/user/Desktop/notes_to_open.txt"})
    assert (opened.status_code, opened.text) == (200, "File opened and window activated successfully")
    assert call(server, "POST", "/setup/activate_window", json={"window_name": "notes_to_open"}).status_code == 200
