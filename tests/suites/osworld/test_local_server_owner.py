"""A local OSWorld server outlives no owner: when the process that started it (the supervisor, a node)
is killed with SIGKILL, the server stops as on SIGTERM, and its desktop and home folder go with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


from runtime.process_tree import alive

from tests.paths import ROOT

OWNER = """
import json, httpx
from actors.backends.waa.client import TOKEN_HEADER
from bench.suites.osworld.local import LocalServer
server = LocalServer.start((640, 480))
home = httpx.post(server.url + "/execute", json={"command": "echo $HOME", "shell": True},
                  headers={TOKEN_HEADER: server.token}, timeout=60).json()["output"].strip()
print(json.dumps({"pid": server.process.pid, "home": home}), flush=True)
import time; time.sleep(300)
"""


def test_a_local_server_stops_when_its_owner_is_killed():
    owner = subprocess.Popen([sys.executable, "-c", OWNER], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        started = json.loads(owner.stdout.readline())
    finally:
        owner.kill()
        owner.wait()
        owner.stdout.close()
    deadline = time.monotonic() + 15
    while (alive(started["pid"]) or Path(started["home"]).exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    outlived = alive(started["pid"])
    if outlived:
        os.kill(started["pid"], signal.SIGTERM)  # the failed case's server, which nothing else would end
    assert not outlived and not Path(started["home"]).exists()
