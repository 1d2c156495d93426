"""Getters that read parts of the active tab's address, as OSWorld's do: the address bar's text from
the tree (`active_url_from_accessTree`, with the spec's `goto_prefix`), then

- `active_tab_url_parse`: the query's values for `parse_keys` (the first of each, "" when absent),
  keys renamed by `replace` (a key it names that is not parsed raises, as in OSWorld), each value
  split at commas with `split_list`;
- `url_dashPart`: the address split at "/", the part at `partIndex` (an int, negative counting from
  the end; None when it is not an int or is at least the number of parts), without what follows "?"
  with `needDeleteId`; as itself (`returnType` "string") or as `{key: part}` ("json"), None for
  another type.

None when the tree shows no address.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from bench.suites.osworld.chrome import active_url_from_accessTree
from bench.suites.osworld.episode import Episode


async def _active_tab_url_parse(episode: Episode, spec: dict[str, Any]) -> dict[str, Any] | None:
    url = await active_url_from_accessTree(episode, spec)
    if url is None:
        return None
    query = parse_qs(urlparse(url).query)
    found: dict[str, Any] = {key: query.get(key, [""])[0] for key in spec["parse_keys"]}
    for old, new in spec.get("replace", {}).items():
        found[new] = found.pop(old)
    if spec.get("split_list", False):
        found = {key: value.split(",") for key, value in found.items()}
    return found


async def _url_dash_part(episode: Episode, spec: dict[str, Any]) -> Any:
    url = await active_url_from_accessTree(episode, spec)
    if url is None:
        return None
    try:
        index = int(spec["partIndex"])
    except (ValueError, TypeError):
        return None
    parts = url.split("/")
    if index >= len(parts):
        return None
    part = parts[index].split("?")[0] if spec.get("needDeleteId", False) else parts[index]
    if spec["returnType"] == "string":
        return part
    if spec["returnType"] == "json":
        return {spec["key"]: part}
    return None


URL_GETTERS = {"active_tab_url_parse": _active_tab_url_parse, "url_dashPart": _url_dash_part}
