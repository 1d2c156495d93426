"""Getters that read parts of the active tab's address, as OSWorld's do: the address bar's text from
the tree (`active_url_from_accessTree`, with the spec's `goto_prefix`), then

- `active_tab_url_parse`: the query's values for `parse_keys` (the first of each, "" when absent),
  keys renamed by `replace` (a key it names that is not parsed raises, as in OSWorld), each value
  split at commas with `split_list`;
- `url_dashPart`: the address split at "/", the part at `partIndex` (an int, negative counting from
  the end; None when it is not an int or is at least the number of parts), without what follows "?"
  with `needDeleteId`; as itself (`returnType` "string") or as `{key: part}` ("json"), None for
  another type;
- `url_path_parse` (OSWorld's Macy's product-listing parse): from the address's percent-decoded path,
  `mens_clothing`, `shirts` and `short_sleeve` (True or None, from the path's words and its first pair
  of adjacent comma-separated segments read as keys and values), and each of `parse_keys` found among
  those keys (`Price_discount_range` as "50_PERCENT_ off & more" only when that is its sole discount
  choice of the three, else "not_50_PERCENT_ off & more").

None when the tree shows no address.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

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


HALF_OFF, NOT_HALF_OFF = "50_PERCENT_ off & more", "not_50_PERCENT_ off & more"
_SMALLER_DISCOUNTS = ("30_PERCENT_ off & more", "20_PERCENT_ off & more")


def _path_pairs(parts: list[str]) -> list[tuple[str, str]]:
    """The first two adjacent path segments that both hold a comma, read as keys and their values."""
    for keys, values in zip(parts, parts[1:]):
        if "," in keys and "," in values:
            return [(key.strip(), value.strip()) for key, value in zip(keys.split(","), values.split(","))]
    return []


def macys_fields(url: str, parse_keys: list[Any]) -> dict[str, Any]:
    path = unquote(urlparse(url).path)
    pairs: dict[str, Any] = {}
    shirts, short_sleeve = "shirts" in path, "short-sleeve" in path
    for key, value in _path_pairs(path.strip("/").split("/")):
        if key == "Price_discount_range":
            pairs[key] = [item.strip() for item in value.split("|")] if value else None
        else:
            pairs[key] = value or None
        shirts = shirts or key == "Product_department" and value in ("shirts", "Shirts", "Shirt")
        short_sleeve = short_sleeve or key == "Sleeve_length" and value in ("short-sleeve", "Short Sleeve")
    for field in ("Men_regular_size_t", "Price_discount_range"):
        pairs.setdefault(field, None)
    found: dict[str, Any] = {"mens_clothing": True if "mens-clothing" in path else None,
                             "shirts": shirts or None, "short_sleeve": short_sleeve or None}
    for key in parse_keys:
        if key not in pairs:
            continue
        if key == "Price_discount_range":
            chosen = pairs[key]
            found[key] = (HALF_OFF if chosen is not None and HALF_OFF in chosen
                          and not any(smaller in chosen for smaller in _SMALLER_DISCOUNTS) else NOT_HALF_OFF)
        else:
            found[key] = pairs[key]
    return found


async def _url_path_parse(episode: Episode, spec: dict[str, Any]) -> dict[str, Any] | None:
    url = await active_url_from_accessTree(episode, spec)
    return None if url is None else macys_fields(url, spec["parse_keys"])


URL_GETTERS = {"active_tab_url_parse": _active_tab_url_parse, "url_dashPart": _url_dash_part,
               "url_path_parse": _url_path_parse}
