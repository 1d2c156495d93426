"""How WAA's evaluator asks a Windows guest things: its controller's calls, as requests.

The Windows-side getters (settings, clock, file explorer, paint) read what a
task changed on the VM in three ways, each reproduced here with the request
WAA's `PythonController` sends and the reading it makes of the answer:

- `shell`: `execute_shell_command`, a command line POSTed to /execute as
  `{"command": "..."}` (the server splits it with shlex); the JSON answer when
  the server says 200, else None;
- `python`: `execute_python_command`, `python -c` with WAA's pyautogui prefix;
  the JSON answer whatever the status (a 500 answers `{"status": "error",
  ...}` with no `output`), None when the body is not JSON;
- `endpoint_agrees`: WAA's server endpoints that answer a yes/no question
  (`/is_details_view`, `/check_if_timer_started`, ...) by their status: 200
  is yes, anything else no.

WAA's client does not retry; troupe's retries a 5xx and connection errors
(actors.backends.waa.client) and then reads the last 5xx as WAA reads any
non-200 answer. A server that cannot be reached at all is `WAAUnavailable`:
the VM is gone, which is the supervisor's business, not a verdict.

Where WAA's getter then raises (it indexes output that is not there, opens
None), the getter raises `GetterCrash` through `unread`, which names the
value the `unread-answer` fix would read.
"""

from __future__ import annotations

import json
import logging
from typing import Any, NoReturn

import httpx

from actors.backends.waa.client import WAAClient
from actors.backends.waa.commands import command as pyautogui_command
from bench.suites.waa.errors import GetterCrash

logger = logging.getLogger(__name__)


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


async def shell(client: WAAClient, command: str) -> dict[str, Any] | None:
    """`command` run as WAA's execute_shell_command runs it; None for an answer other than 200."""
    response = await client.post("/execute", json={"command": command}, answer_server_errors=True)
    if response.status_code != 200:
        logger.warning("/execute %r: HTTP %s: %s; WAA reads no answer", command, response.status_code,
                       response.text[:200])
        return None
    return _json(response)


async def python(client: WAAClient, program: str) -> dict[str, Any] | None:
    """`program` run as WAA's execute_python_command runs it: the answer's JSON whatever its status."""
    response = await client.post("/execute", json={"command": pyautogui_command(program), "shell": False},
                                 answer_server_errors=True)
    return _json(response)


def registry_command(path: str, name: str) -> str:
    """WAA's get_registry_key: the value printed by PowerShell (a REG_BINARY one byte a line)."""
    return f"powershell -Command \"Get-ItemPropertyValue -Path '{path}' -Name '{name}'\""


async def endpoint_agrees(client: WAAClient, endpoint: str, body: dict[str, Any]) -> bool:
    """A WAA endpoint's yes (200) or no (anything else; 400 is its ordinary no)."""
    response = await client.post(endpoint, json=body, answer_server_errors=True)
    if response.status_code not in (200, 400):
        logger.warning("%s: HTTP %s: %s; WAA reads it as no", endpoint, response.status_code, response.text[:200])
    return response.status_code == 200


def output_of(answer: dict[str, Any] | None, getter: str, negative: Any) -> str:
    """`answer["output"]` as WAA indexes it, which raises when the command gave no answer;
    `negative` is what the getter reads under the `unread-answer` fix."""
    if not isinstance(answer, dict) or not isinstance(answer.get("output"), str):
        unread(f"{getter}: the command gave no output to read ({answer!r})", negative)
    return answer["output"]


def unread(message: str, value: Any = None) -> NoReturn:
    """WAA's getter raises here; the `unread-answer` fix reads `value`."""
    raise GetterCrash(message, fix="unread-answer", value=value)


async def fetch_file(client: WAAClient, path: str, getter: str = "vm_file") -> bytes | None:
    """The file's bytes through /file; None when the server answers anything but 200, as WAA's
    controller reads it, with a warning in the log unless the answer was 404."""
    response = await client.post("/file", data={"file_path": path}, answer_server_errors=True)
    if response.status_code != 200:
        if response.status_code != 404:
            logger.warning("%s %s: HTTP %s: %s; read as no file, as WAA's client does",
                           getter, path, response.status_code, response.text[:200])
        return None
    return response.content
