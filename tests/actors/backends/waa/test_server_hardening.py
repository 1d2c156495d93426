"""The Linux WAA server attacked as an outsider would (issue 17), each attack against a real
server process on 127.0.0.1: parser cost, paths outside the session's roots, commands that
are not pyautogui programs, malformed requests, floods of half-open connections, and a
program's sleep held against other clients. And /list_directory, which lists folders recursively:
answered as WAA's server answers it, within the roots only."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

from actors.backends.waa.client import TOKEN_HEADER
from actors.backends.waa.commands import command
from actors.backends.waa.server.http import MAX_CONNECTIONS, MAX_OPS, MAX_PROGRAM, READ_TIMEOUT
from actors.backends.waa.server.pyautogui_script import parse
from runtime.head_gate import HEAD_SECONDS

from tests.waa_servers import LinuxServer, start_linux_server, stop


@pytest.fixture(scope="module")
def task_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("task-root")


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """A folder beside the roots: nothing in it may be read, written or moved."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.txt").write_text("not yours")
    return folder


@pytest.fixture(scope="module")
def server(task_root):
    linux = start_linux_server(flags=("--root", str(task_root)))
    yield linux
    stop(linux)


def post(server: LinuxServer, path: str, body: dict | None = None, **kwargs) -> httpx.Response:
    return httpx.post(server.url + path, json=body, headers={TOKEN_HEADER: server.token}, timeout=30, **kwargs)


def read_file(server: LinuxServer, path: str) -> httpx.Response:
    """/file as WAA's client asks it: a urlencoded form."""
    return post(server, "/file", data={"file_path": path})


def upload(server: LinuxServer, path: str, data: bytes) -> httpx.Response:
    """/setup/upload as the WAA suite's host-side download sends it: a multipart form."""
    return post(server, "/setup/upload", data={"file_path": path}, files={"file_data": ("f", data)})


def home(server: LinuxServer) -> Path:
    return Path(post(server, "/desktop_path").json()["desktop_path"]).parent


def raw_request(server: LinuxServer, head: bytes, timeout: float = 10.0) -> bytes:
    """Send `head` (request line, headers, maybe some body) and read the answer until the server closes."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(head)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
        return answer


# --- parser cost and program size ---------------------------------------------------------


def program_of(statements: int) -> str:
    return "import pyautogui; import time; pyautogui.FAILSAFE = False\n" + "".join(
        f"pyautogui.moveTo({i % 500}, {i % 300})\n" for i in range(statements))


def parse_seconds(program: str) -> float:
    """CPU seconds of the fastest of two parses: the host is shared, wall time is not ours."""
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        parse(program)
        best = min(best, time.process_time() - started)
    return best


def test_parsing_is_linear_in_the_number_of_statements():
    # Quadratic parsing (issue 17: 1,000 statements 2.4 s, 4,000 31 s) makes 4x the statements cost 16x.
    small, large = parse_seconds(program_of(10_000)), parse_seconds(program_of(40_000))
    assert large / small < 8, (small, large)
    assert large < 20  # 40,000 statements; a quiet machine takes well under 1 s


def test_a_program_over_the_size_limit_is_refused_with_413_and_the_limit(server):
    program = "import pyautogui\n" + "pyautogui.moveTo(1, 1)  # padding padding padding\n" * 25_000
    assert len(program) > MAX_PROGRAM
    reply = post(server, "/execute", {"command": command(program)})
    assert reply.status_code == 413 and f"over the {MAX_PROGRAM} byte limit" in reply.json()["message"]


def test_a_program_asking_for_too_many_input_steps_is_refused_with_413(server):
    keys = "pyautogui.press([" + '"a",' * (MAX_OPS + 1) + "])"  # one input step per key, within MAX_PROGRAM
    reply = post(server, "/execute", {"command": command("import pyautogui\n" + keys)})
    assert reply.status_code == 413 and f"over the limit of {MAX_OPS}" in reply.json()["message"]


def test_a_body_over_the_limit_is_refused_before_it_is_read(server):
    answer = raw_request(server, f"POST /execute HTTP/1.1\r\n{TOKEN_HEADER}: {server.token}\r\n"
                                 "Content-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{".encode())
    assert answer.startswith(b"HTTP/1.0 413") and b"over the 4194304 byte limit" in answer


# --- paths --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/etc/shadow", "/proc/self/environ", "~/../../../etc/passwd", "../../etc/passwd"])
def test_file_refuses_paths_outside_the_roots(server, path):
    reply = read_file(server, path)
    assert reply.status_code == 403 and "outside the folders this server serves" in reply.json()["message"]


def test_a_symlink_out_of_the_home_is_followed_and_refused(server, outside):
    link = home(server) / "escape"
    link.symlink_to(outside)
    try:
        assert read_file(server, "~/escape/secret.txt").status_code == 403
        written = upload(server, "~/escape/planted.txt", b"x")
        assert written.status_code == 403 and not (outside / "planted.txt").exists()
    finally:
        link.unlink()


def test_writes_moves_and_opens_outside_the_roots_are_refused_and_change_nothing(server, outside):
    assert upload(server, str(outside / "planted.txt"), b"x").status_code == 403
    assert post(server, "/setup/create_folder", {"path": str(outside / "made")}).status_code == 403
    assert post(server, "/setup/recycle", {"path": str(outside / "secret.txt")}).status_code == 403
    assert post(server, "/setup/download_file", {"url": "http://127.0.0.1:1/x", "path": str(outside / "d")}).status_code == 403
    assert post(server, "/setup/open_file", {"path": "/etc/passwd"}).status_code == 403
    assert post(server, "/file_exists", {"path": "/etc", "file_name": "passwd"}).status_code == 403
    assert post(server, "/folder_exists", {"path": "~", "folder_name": "../../etc"}).status_code == 403
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_chrome_is_not_launched_loading_an_extension_from_outside_the_roots(server, outside):
    reply = post(server, "/setup/launch", {"command": ["google-chrome", f"--load-extension=~/x,{outside}"]})
    assert reply.status_code == 403 and str(outside) in reply.json()["message"]


def test_the_home_and_a_root_folder_are_served(server, task_root):
    assert upload(server, str(task_root / "in" / "task.txt"), b"for the task").status_code == 200
    assert (task_root / "in" / "task.txt").read_bytes() == b"for the task"
    assert upload(server, "~/Documents/a.txt", b"home").status_code == 200
    read = read_file(server, "~/Documents/a.txt")
    assert read.status_code == 200 and read.content == b"home"
    assert post(server, "/setup/recycle", {"path": "~/Documents/a.txt"}).status_code == 200


def test_list_directory_answers_as_waas_server(server):
    """WAA's tree: folders with `children` (recursively), other entries as files, the top named by
    the basename of the path asked; its 400s with their bodies."""
    folder = home(server) / "listed"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("a")
    (folder / "sub" / "b.lnk").write_text("b")
    try:
        reply = post(server, "/list_directory", {"path": "~/listed"})
        assert reply.status_code == 200
        tree = reply.json()["directory_tree"]
        tree["children"].sort(key=lambda child: child["name"])
        assert tree == {"type": "directory", "name": "listed", "children": [
            {"type": "file", "name": "a.txt"},
            {"type": "directory", "name": "sub", "children": [{"type": "file", "name": "b.lnk"}]}]}
        reply = post(server, "/list_directory", {})
        assert (reply.status_code, reply.json()) == (400, {"error": "Missing 'path' parameter"})
        for not_a_folder in ("~/listed/a.txt", "~/listed/none"):
            reply = post(server, "/list_directory", {"path": not_a_folder})
            assert (reply.status_code, reply.json()) == (400, {"error": "The provided path is not a directory"})
    finally:
        shutil.rmtree(folder)


def test_list_directory_lists_nothing_outside_the_roots_nor_a_link_loop(server, outside):
    reply = post(server, "/list_directory", {"path": str(outside)})
    assert reply.status_code == 403 and "outside the folders this server serves" in reply.json()["message"]
    folder = home(server) / "links"
    folder.mkdir()
    (folder / "escape").symlink_to(outside)
    (folder / "loop").symlink_to(folder)
    try:
        children = post(server, "/list_directory", {"path": "~/links"}).json()["directory_tree"]["children"]
        errors = sorted(child["error"] for child in children)
        assert len(errors) == 2 and "secret.txt" not in json.dumps(children)
        assert "outside the folders this server serves" in errors[0] and "links back to" in errors[1]
    finally:
        shutil.rmtree(folder)


# --- commands -----------------------------------------------------------------------------


def bypasses(marker: Path) -> list[tuple[str, dict]]:
    """Each way issue 17 ran arbitrary code through the pyautogui allow-list, or around it."""
    program = f"import pathlib; pathlib.Path({str(marker)!r}).touch()"
    return [
        ("/execute", {"command": f"python -c {json.dumps(program)}"}),
        ("/execute", {"command": ["python", "-c", program, "extra"]}),
        ("/execute", {"command": ["python3", "-Ic", program]}),
        ("/execute", {"command": ["env", "python3", "-c", program]}),
        ("/execute", {"command": f"touch {marker}", "shell": True}),
        ("/setup/execute", {"command": f"touch {marker}", "shell": "true"}),
        ("/setup/execute", {"command": ["touch", str(marker)]}),
        ("/setup/launch", {"command": f"touch {marker}", "shell": True}),
        ("/setup/launch", {"command": ["touch", str(marker)]}),
    ]


@pytest.mark.parametrize("case", range(len(bypasses(Path("/x")))))
def test_commands_other_than_pyautogui_programs_are_refused_by_default(server, tmp_path, case):
    marker = tmp_path / "ran"
    path, body = bypasses(marker)[case]
    reply = post(server, path, body)
    assert reply.status_code == 403 and "--allow-commands" in reply.json()["message"]
    time.sleep(0.3)  # a launch would have spawned by now
    assert not marker.exists()


def test_waas_own_pyautogui_programs_still_run(server):
    reply = post(server, "/execute", {"command": command("pyautogui.moveTo(10, 20); pyautogui.click()")})
    assert reply.status_code == 200, reply.text


def test_allow_commands_is_announced_and_runs_commands(tmp_path):
    linux = start_linux_server(flags=("--allow-commands",), stderr=subprocess.PIPE)
    try:
        assert "WARNING: --allow-commands" in linux.process.stderr.readline()
        marker = tmp_path / "ran"
        assert post(linux, "/setup/execute", {"command": f"touch {marker}", "shell": True}).status_code == 200
        assert marker.exists()
        unsplittable = post(linux, "/execute", {"command": "echo 'unclosed"})
        assert unsplittable.status_code == 400 and "cannot be split into arguments" in unsplittable.json()["message"]
    finally:
        stop(linux)


# --- malformed requests -------------------------------------------------------------------


def test_a_non_ascii_token_is_refused_and_the_server_goes_on(server):
    answer = raw_request(server, f"GET /probe HTTP/1.1\r\n{TOKEN_HEADER}: ".encode() + "clé\xff".encode() + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 401")
    assert httpx.get(server.url + "/probe", headers={TOKEN_HEADER: server.token}).status_code == 200


@pytest.mark.parametrize("length", ["-1", "abc", "1e3", "٣"])
def test_a_content_length_that_is_not_a_count_of_bytes_answers_400_at_once(server, length):
    answer = raw_request(server, f"POST /execute HTTP/1.1\r\n{TOKEN_HEADER}: {server.token}\r\n"
                                 f"Content-Length: {length}\r\n\r\n{{}}".encode(), timeout=5)
    assert answer.startswith(b"HTTP/1.0 400") and b"Content-Length must be a whole number" in answer


@pytest.mark.parametrize("path, body, problem", [
    ("/setup/create_folder", {"path": 5}, "path must be str, got int"),
    ("/setup/open_file", {"path": None}, "path must be str, got NoneType"),
    ("/execute", {"command": 5}, "command must be str or list, got int"),
    ("/execute", {"command": ["python", 3]}, "command must be a string or a list of strings"),
    ("/execute", [1, 2], "the body must be a JSON object"),
    ("/setup/activate_window", {"window_name": ["x"]}, "window_name must be str, got list"),
    ("/setup/activate_window", {"window_name": "x", "strict": "yes"}, "strict must be bool, got str"),
    ("/file_exists", {"path": "~", "file_name": 1}, "file_name must be str, got int"),
])
def test_wrong_field_types_answer_400_naming_the_field(server, path, body, problem):
    reply = post(server, path, body)
    assert reply.status_code == 400 and problem in reply.json()["message"]


def test_a_body_that_never_arrives_is_answered_408_after_the_read_timeout(server):
    started = time.monotonic()
    answer = raw_request(server, f"POST /execute HTTP/1.1\r\n{TOKEN_HEADER}: {server.token}\r\n"
                                 "Content-Length: 100\r\n\r\n{\"comm".encode(), timeout=READ_TIMEOUT + 10)
    assert answer.startswith(b"HTTP/1.0 408")
    assert time.monotonic() - started < READ_TIMEOUT + 5


def test_300_half_sent_request_heads_hold_no_slot_and_a_good_client_is_served_within_a_second(server):
    port = int(server.url.rsplit(":", 1)[1])
    flood = [socket.create_connection(("127.0.0.1", port), timeout=HEAD_SECONDS + 10) for _ in range(300)]
    try:
        for conn in flood:
            conn.sendall(b"POST /execute HTTP/1.1\r\nContent-")
        time.sleep(0.5)
        started = time.monotonic()
        served = httpx.get(server.url + "/probe", headers={TOKEN_HEADER: server.token}, timeout=10)
        assert served.status_code == 200 and time.monotonic() - started < 1.0
        for conn in flood:
            assert conn.recv(65536) == b""  # closed once the head deadline passes
        assert time.monotonic() - started < HEAD_SECONDS + 5
    finally:
        for conn in flood:
            conn.close()


def test_requests_whose_bodies_dribble_are_capped_at_the_servers_slots(server):
    port = int(server.url.rsplit(":", 1)[1])
    flood = [socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT + 10) for _ in range(MAX_CONNECTIONS + 8)]
    try:
        for conn in flood:
            conn.sendall(f"POST /execute HTTP/1.1\r\n{TOKEN_HEADER}: {server.token}\r\nContent-Length: 100\r\n"
                         f"\r\n{{\"comm".encode())
        time.sleep(0.5)
        busy = httpx.get(server.url + "/probe", headers={TOKEN_HEADER: server.token}, timeout=10)
        assert busy.status_code == 503  # refused at once, not queued behind the flood
        started = time.monotonic()
        answers = [conn.recv(65536) for conn in flood]  # 503 at once, or 408 after the read timeout
        assert all(a.startswith((b"HTTP/1.1 503", b"HTTP/1.0 408")) for a in answers), answers
        assert time.monotonic() - started < READ_TIMEOUT + 5
    finally:
        for conn in flood:
            conn.close()
    assert httpx.get(server.url + "/probe", headers={TOKEN_HEADER: server.token}, timeout=10).status_code == 200


# --- sleeps -------------------------------------------------------------------------------


def test_a_program_sleeping_over_the_limit_in_all_is_refused(server):
    reply = post(server, "/execute", {"command": command("time.sleep(40); time.sleep(30)")})
    assert reply.status_code == 400 and "sleeps over 60 s in all" in reply.json()["message"]


def test_a_sleeping_program_does_not_hold_up_another_clients_input(server):
    sleeper = threading.Thread(target=post, args=(server, "/execute", {"command": command("time.sleep(3); time.sleep(3)")}))
    sleeper.start()
    try:
        time.sleep(0.5)
        started = time.monotonic()
        reply = post(server, "/execute", {"command": command("pyautogui.moveTo(30, 40)")})
        waited = time.monotonic() - started
    finally:
        sleeper.join(15)
    assert reply.status_code == 200 and waited < 4, waited  # behind the sleeps it would wait over 5 s
