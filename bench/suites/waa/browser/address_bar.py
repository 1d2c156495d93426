"""The active tab's URL as WAA reads it: from the address bar in the VM's accessibility tree.

Playwright cannot tell which tab is active, so WAA's getters read the
address bar's text from the tree the server dumps (/accessibility) and put
`goto_prefix` (default "https://") in front, because the bar shows URLs
without their scheme. On Windows (UI Automation) the bar is the last element
named "Address and search bar" inside a `chrome_widgetwin_1` window, and its
text is its `value` attribute; on Linux (AT-SPI) it is the last `entry` of
that name inside the application named "Google Chrome", and its text is the
element's text. No tree, no such element or no text: None. An element with
no `value` attribute, or a tree that is not XML, is WAA's crash
(`GetterCrash`; the `unread-answer` fix reads None).

From that URL:

- `url_dashPart`: its `partIndex`-th "/"-separated part (Python indexing,
  -1 the last), cut at "?" when `needDeleteId`; as a string, or as
  `{key: part}` when `returnType` is "json" (any other type: None);
- `active_tab_url_parse`: the first value of each of `parse_keys` in its
  query ("" when absent), renamed by `replace` and, by `or`, filled from
  another key when empty.

The Linux WAA server's tree lists windows only, so these getters are
verified against recorded Windows trees (tests/suites/waa/test_browser_metrics.py).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import lxml.etree

from actors.backends.waa.client import WAAClient
from bench.suites.waa.browser.profile import WINDOWS, vm_platform
from bench.suites.waa.guest import unread

VALUE = "{uri:deskat:value.at-spi.gnome.org}value"
ADDRESS_BAR = "Address and search bar"
WINDOWS_BAR = f"//chrome_widgetwin_1//*[@name='{ADDRESS_BAR}']"
LINUX_BAR = f"//application[@name='Google Chrome']//entry[@name='{ADDRESS_BAR}']"


async def _tree(client: WAAClient, windows: bool) -> str | None:
    response = await client.get("/accessibility", params={"backend": "uia"} if windows else None)
    return response.json()["AT"] if response.status_code == 200 else None


async def active_tab_url(client: WAAClient, spec: dict[str, Any]) -> str | None:
    windows = await vm_platform(client) == WINDOWS
    tree = await _tree(client, windows)
    if tree is None:
        return None
    try:
        root = lxml.etree.fromstring(tree.encode() if isinstance(tree, str) else tree)
    except lxml.etree.XMLSyntaxError as exc:
        unread(f"the accessibility tree is not XML ({exc})")
    bars = root.xpath(WINDOWS_BAR if windows else LINUX_BAR)
    if not bars:
        return None
    if windows and VALUE not in bars[-1].attrib:
        unread("the address bar has no value in the accessibility tree")
    text = bars[-1].attrib[VALUE] if windows else bars[-1].text
    return f"{spec.get('goto_prefix', 'https://')}{text}" if text else None


async def url_dash_part(client: WAAClient, spec: dict[str, Any]) -> str | dict[str, str] | None:
    url = await active_tab_url(client, spec)
    if url is None:
        return None
    parts = url.split("/")
    index = spec["partIndex"]
    if not -len(parts) <= index < len(parts):
        unread(f"url_dashPart: {url!r} has no part {index}")
    part = parts[index].split("?")[0] if spec["needDeleteId"] else parts[index]
    if spec["returnType"] == "string":
        return part
    if spec["returnType"] == "json":
        return {spec["key"]: part}
    return None


async def active_tab_url_parse(client: WAAClient, spec: dict[str, Any]) -> dict[str, str] | None:
    url = await active_tab_url(client, spec)
    if url is None:
        return None
    query = parse_qs(urlparse(url).query)
    found = {key: query.get(key, [""])[0] for key in spec["parse_keys"]}
    for old, new in spec.get("replace", {}).items():
        found[new] = found.pop(old)
    for key, fallback in spec.get("or", {}).items():
        found[key] = found[key] or found[fallback]
    return found


ADDRESS_BAR_GETTERS = {"url_dashPart": url_dash_part, "active_tab_url_parse": active_tab_url_parse}
