"""troupe's find_unpacked_extension_path gives what OSWorld's own getter gives (getters/chrome.py,
imported from ../shared/osworld/reference for tests only) for the same Preferences file, and the task's
is_in_list (metrics/general.py) scores both alike: troupe's getter reads the file from a stand-in of
OSWorld's server over a real socket, OSWorld's from an env whose controller returns it. The files sit on
the getter's edges: no profile, not JSON, no extensions, unpacked, packed and component extensions, an
entry without a path. Prints the agreement. Then troupe's own part: a home elsewhere than /home/user
(troupe's local desktop) is named as /home/user."""

from __future__ import annotations

import functools
import json
from types import SimpleNamespace
from typing import Any

import pytest

from actors.backends.waa.client import WAAClient
from actors.backends.waa.commands import command
from bench.suites.osworld.chrome import PROFILE_PROGRAMS
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.metrics import METRICS

from tests.osworld_reference import REFERENCE, chrome_getters, general
from tests.osworld_servers import osworld_vm
from tests.waa_servers import StandIn

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")]

HOME = "/home/user"
FOLDER = f"{HOME}/Desktop/helloExtension"
RULE = {"expected": FOLDER}
"""The task's is_in_list rule (chrome/6766f2b8)."""
UNPACKED = {"path": FOLDER, "location": 4, "state": 1}
COMMAND_LINE = {"path": FOLDER, "location": 8}
PACKED = {"path": "aapocclcgogkmnckokdopfmhonfmgoek/0.10_0", "location": 1}
COMPONENT = {"path": "/usr/lib/chromium/resources/pdf", "location": 5}


def preferences(settings: Any = None, **top: Any) -> bytes:
    return json.dumps({**top, **({"extensions": {"settings": settings}} if settings is not None else {})}).encode()


CASES: list[bytes | None] = [
    None, b"", b"{not json", b"[]", b'"Preferences"', preferences(), preferences(extensions={}),
    preferences({}), preferences({"a" * 32: UNPACKED}), preferences({"b" * 32: COMMAND_LINE}),
    preferences({"c" * 32: PACKED}), preferences({"d" * 32: COMPONENT}),
    preferences({"c" * 32: PACKED, "a" * 32: UNPACKED, "d" * 32: COMPONENT}),
    preferences({"a" * 32: dict(UNPACKED, path=FOLDER + "/")}),  # the list's items are matched whole
    preferences({"a" * 32: dict(UNPACKED, path=f"{HOME}/Desktop")}),
    preferences({"e" * 32: {"location": 4}, "a" * 32: UNPACKED}),  # an entry without a path
    preferences({"a" * 32: None}), preferences({"a" * 32: "path"}), preferences({"a" * 32: dict(UNPACKED, path=None)}),
    preferences(["a" * 32]), preferences(extensions="none"), preferences(extensions={"settings": []}),
]
"""Preferences files (None: the profile has none)."""


def preferences_path(home: str) -> str:
    return f"{home}/.config/google-chrome/Default/Preferences"


async def ours(contents: list[bytes | None], home: str = HOME) -> list[Any]:
    """What troupe's getter gives for each Preferences file, from OSWorld's server (a stand-in) on a Linux
    VM whose user's home is `home`."""
    behaviour = osworld_vm({json.dumps(command("import platform; print(platform.system())")): "Linux\n",
                            json.dumps(command(PROFILE_PROGRAMS["Linux"].format(name="Preferences"))):
                                preferences_path(home) + "\n"})
    found = []
    with StandIn(behaviour) as server:
        client = WAAClient(server.url)
        try:
            for content in contents:
                behaviour.files = {} if content is None else {preferences_path(home): content}
                found.append(await resolve(Episode(client, None), {"type": "find_unpacked_extension_path"}))
        finally:
            await client.aclose()
    return found


@functools.cache
def reference() -> Any:
    return chrome_getters()


@functools.cache
def reference_metrics() -> Any:
    return general()


def theirs(content: bytes | None) -> Any:
    controller = SimpleNamespace(execute_python_command=lambda program: {"output": preferences_path(HOME) + "\n"},
                                 get_file=lambda path: content)
    return reference().get_find_unpacked_extension_path(SimpleNamespace(vm_platform="Linux", controller=controller), {})


def score(is_in_list: Any, value: Any) -> Any:
    try:
        return float(is_in_list(value, RULE))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


async def test_the_extension_paths_and_their_score_agree_with_osworlds_getter_and_is_in_list(capsys):
    differences, scores = [], []
    for content, mine in zip(CASES, await ours(CASES)):
        reference_value = theirs(content)
        both = score(METRICS["is_in_list"], mine), score(reference_metrics().is_in_list, reference_value)
        scores.append(both[0])
        if mine != reference_value or both[0] != both[1]:
            differences.append((content, reference_value, mine, both))
    with capsys.disabled():
        print(f"\nparity find_unpacked_extension_path (with is_in_list): {len(CASES) - len(differences)}/{len(CASES)} "
              "cases agree with OSWorld's getter and metric")
    assert not differences
    assert scores.count(1.0) == 3  # the unpacked folder, loaded from the extensions page or the command line


async def test_a_home_elsewhere_is_named_as_the_home_osworlds_tasks_name():
    """Chrome records the folder where it really is: troupe's local desktop's home, standing for /home/user."""
    home = "/tmp/troupe-home-abc"
    content = preferences({"a" * 32: dict(UNPACKED, path=f"{home}/Desktop/helloExtension"),
                           "b" * 32: dict(UNPACKED, path=f"{home}x/Desktop/helloExtension"), "c" * 32: PACKED,
                           "d" * 32: COMPONENT})
    assert await ours([content, None], home) == [
        [FOLDER, f"{home}x/Desktop/helloExtension", PACKED["path"], COMPONENT["path"]], "Google"]
