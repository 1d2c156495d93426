"""troupe's address getters (active_tab_url_parse, url_dashPart) give what OSWorld's own give
(getters/chrome.py, imported from ../shared/osworld/reference for tests only) for the same accessibility
tree: troupe's read it from a stand-in of OSWorld's server over a real socket, OSWorld's from an env whose
controller returns it. Prints the agreement per getter."""

from __future__ import annotations

import functools
import json
from types import SimpleNamespace
from xml.sax.saxutils import escape

import pytest


from tests.osworld_reference import REFERENCE, chrome_getters
from tests.osworld_servers import UBUNTU, StandIn, getter_outcome, osworld_vm

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")]


def tree(address: str | None) -> str:
    """OSWorld's XML with Google Chrome's address bar showing `address` (no bar when None)."""
    bar = "" if address is None else f'<entry name="Address and search bar">{escape(address)}</entry>'
    return (f'<desktop-frame xmlns:st="{UBUNTU}/state"><application name="Google Chrome"><frame name="x">{bar}'
            '</frame></application></desktop-frame>')


SEARCH = "google.com/search?q=cats&tbm=isch&tbs=isz:l,ic:color"
CASES = {
    "active_tab_url_parse": [
        (SEARCH, {"parse_keys": ["q", "tbm"]}), (SEARCH, {"parse_keys": ["q", "missing"]}),
        (SEARCH, {"parse_keys": ["q", "tbs"], "split_list": True}),
        (SEARCH, {"parse_keys": ["q", "tbm"], "replace": {"tbm": "kind"}}),
        (SEARCH, {"parse_keys": ["q"], "replace": {"tbm": "kind"}}),  # a renamed key not parsed: raises
        ("example.com/a?x=1&x=2", {"parse_keys": ["x"], "goto_prefix": "https://www."}),
        ("example.com", {"parse_keys": ["x"]}), (None, {"parse_keys": ["q"]}), (SEARCH, {}),
    ],
    "url_dashPart": [
        ("example.com/flights/2024-05-01/nyc?id=7", {"partIndex": -2, "returnType": "json", "key": "time"}),
        ("example.com/flights/2024-05-01/nyc?id=7", {"partIndex": -1, "needDeleteId": True, "returnType": "string"}),
        ("example.com/flights/nyc?id=7", {"partIndex": "3", "returnType": "string"}),
        ("example.com/flights", {"partIndex": 9, "returnType": "string"}),
        ("example.com/flights", {"partIndex": "x", "returnType": "string"}),
        ("example.com/flights", {"partIndex": 1, "returnType": "xml"}),
        ("example.com/flights", {"partIndex": 1, "returnType": "json"}),  # no key: raises
        (None, {"partIndex": 1, "returnType": "string"}), ("example.com/flights", {"returnType": "string"}),
    ],
}


@functools.cache
def reference() -> object:
    return chrome_getters()


def theirs(name: str, address: str | None, config: dict) -> object:
    env = SimpleNamespace(controller=SimpleNamespace(get_accessibility_tree=lambda: tree(address)))
    function = {"active_tab_url_parse": "get_active_tab_url_parse", "url_dashPart": "get_url_dashPart"}[name]
    try:
        return getattr(reference(), function)(env, dict(config))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


async def ours(server: StandIn, behaviour, name: str, address: str | None, config: dict) -> object:
    behaviour.gets["/accessibility"] = (200, json.dumps({"AT": tree(address)}).encode())
    return await getter_outcome(server.url, {"type": name, **config})


@pytest.mark.parametrize("name", sorted(CASES))
async def test_troupes_address_getters_agree_with_osworlds(name, capsys):
    behaviour = osworld_vm()
    differences = []
    with StandIn(behaviour) as server:
        for address, config in CASES[name]:
            mine, reference = await ours(server, behaviour, name, address, config), theirs(name, address, config)
            if mine != reference:
                differences.append((address, config, reference, mine))
    with capsys.disabled():
        print(f"\nparity {name}: {len(CASES[name]) - len(differences)}/{len(CASES[name])} cases agree with "
              "OSWorld's getter")
    assert not differences
