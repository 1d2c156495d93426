"""VS Code's tasks: the metrics and the getter of OSWorld's metrics/vscode.py and getters/vscode.py, with
their semantics. On an OSWorld VM VS Code is there; troupe's local desktops have none (not packaged by
Debian), so these tasks run against a VM (--osworld-url).

- `check_json_settings`: every key of `rules["expected"]` is in the file's
  JSON with that value; a file that is missing, not UTF-8 or not plain JSON
  (VS Code's comments and trailing commas included) scores 0. A file whose
  JSON is not an object scores as Python's `in` and `[]` take it: a list or
  string holding no wanted key scores 0, any other case raises, as OSWorld's
  function does (WAA's, read with no such leniency, raises on every file
  that is not plain JSON: its suite keeps its own);
- `check_json_keybindings`: keybindings.json (bench.formats.vscode_state,
  WAA's too) holds the wanted binding as one of its entries, exactly; a file
  that is not such a list scores 0, before the rule is read;
- `compare_config`: with `containment_ok` (the default), the file's JSON
  holds the expected JSON as a subset (nested objects key by key, lists and
  values equal), or, where either is not JSON, the file's text contains the
  expected text stripped; without it the texts are equal or their JSON is.
  A missing file or an empty expected text scores 0; a file that is not
  UTF-8 raises (WAA's compares the texts only: its suite keeps its own);
- `is_extension_installed`: a command's output does (`contain`) or does not
  (`not_contain`) include the expected text (the judgement WAA's suite
  shares); no output, or another rule type, raises as OSWorld's does;
- `vscode_config` (getter): runs a command of VS Code's palette as OSWorld's
  get_replay does (ctrl+shift+p, the command typed, enter: each a pyautogui
  program through /execute, whose refusals OSWorld ignores; OSWorld's check
  for a Mac compares the platform with "MacOS", which `platform.system()`
  never says, so ctrl it is everywhere), waits OSWorld's 1 s for the
  extension to write its file, then reads the file as `vm_file` does.

check_python_file_by_test_suite lives in python_tests.py: it runs code.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from actors.backends.waa.commands import command as pyautogui_command
from bench.formats.text_file import text_mode
from bench.formats.vscode_state import extension_rule_holds, keybindings
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import MetricFailed, raising_as_osworld

PALETTE_WAIT = 1.0
"""Seconds OSWorld's vscode_config waits after the palette command before it reads the file."""


@raising_as_osworld
def check_json_settings(result: bytes | None, rules: Any, **options: Any) -> float:
    if not result:
        return 0.0
    try:
        data = json.loads(text_mode(result))
    except ValueError:  # UnicodeDecodeError too
        return 0.0
    for key, value in rules["expected"].items():
        if key not in data or data[key] != value:
            return 0.0
    return 1.0


@raising_as_osworld
def check_json_keybindings(result: bytes | None, rules: Any, **options: Any) -> float:
    bindings = keybindings(result)
    if bindings is None:
        return 0.0
    return float(rules["expected"] in bindings)


def _is_subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(key in actual and _is_subset(value, actual[key])
                                                for key, value in expected.items())
    return expected == actual


def _json_equal(actual_text: str, expected_text: Any) -> bool:
    try:
        return json.loads(actual_text) == json.loads(expected_text)
    except Exception:  # noqa: BLE001 - OSWorld's function passes over whatever json.loads raises
        return False


@raising_as_osworld
def compare_config(result: bytes | None, rules: Any, *, containment_ok: Any = True, **options: Any) -> float:
    if result is None:
        return 0.0
    expected_text = rules.get("expected")
    if not expected_text:
        return 0.0
    actual_text = text_mode(result)
    if containment_ok:
        try:
            return float(_is_subset(json.loads(expected_text), json.loads(actual_text)))
        except Exception:  # noqa: BLE001 - OSWorld's function falls back to text on whatever JSON raises
            return float(expected_text.strip() in actual_text)
    return float(actual_text == expected_text or _json_equal(actual_text, expected_text))


@raising_as_osworld
def is_extension_installed(result: Any, rules: Any, **options: Any) -> float:
    kind = rules["type"]
    if kind not in ("contain", "not_contain"):
        raise MetricFailed(f"is_extension_installed: rule type {kind!r} is neither contain nor not_contain "
                           "(OSWorld's function raises NotImplementedError)")
    wanted = rules["expected"]
    if not isinstance(result, str) or not isinstance(wanted, str):
        raise MetricFailed(f"is_extension_installed: {wanted!r} in {result!r} is not a text search "
                           "(OSWorld's function raises here)")
    return extension_rule_holds(result, kind, wanted)


async def _vscode_config(episode: Episode, spec: dict[str, Any]) -> bytes | None:
    for program in ("pyautogui.hotkey('ctrl', 'shift', 'p')",
                    f"pyautogui.typewrite('{spec['vscode_extension_command']}')",
                    "pyautogui.press('enter')"):
        await episode.client.post("/execute", json={"command": pyautogui_command(program), "shell": False},
                                  answer_server_errors=True)
    await anyio.sleep(PALETTE_WAIT)
    return await episode.vm_file(spec["path"])


VSCODE_METRICS = {"check_json_settings": check_json_settings, "check_json_keybindings": check_json_keybindings,
                  "compare_config": compare_config, "is_extension_installed": is_extension_installed}
VSCODE_GETTERS = {"vscode_config": _vscode_config}
