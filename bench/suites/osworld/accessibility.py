"""OSWorld's `check_accessibility_tree` (metrics/general.py): elements of the desktop's tree, in OSWorld's
XML form (the `accessibility_tree` getter's), found by each rule's XPath (or, without one, its CSS
`selectors` joined by ", ") with OSWorld's namespace prefixes (st, attr, cp, doc, docattr, txt, val, act;
`osname` picks Ubuntu's, Windows' or macOS's URIs).

A rule no element meets scores 0. With `text`, the rule's score is the best
of its elements' text against it: equal (1 or 0) when `exact`, else
rapidfuzz's ratio / 100; the task's score is the product of its rules'.
Where OSWorld's function raises (no tree, text that is not XML, a rule with
neither xpath nor selectors, `text` without `exact`, an XPath or selector
that does not parse, an XPath that is not a node set), `MetricFailed`.
"""

from __future__ import annotations

import operator
from typing import Any

import lxml.etree
from lxml.cssselect import CSSSelector
from rapidfuzz import fuzz

from bench.suites.osworld.errors import raising_as_osworld

_KINDS = {"st": "state", "attr": "attributes", "cp": "component", "doc": "document", "txt": "text",
          "val": "value", "act": "action"}
_ONLY = {"ubuntu": {"docattr": "document/attributes"}, "windows": {"docattr": "document/attributes", "class": "class"},
         "macos": {"role": "role"}}
NAMESPACES = {osname: {prefix: f"https://accessibility.{osname}.example.org/ns/{path}"
                       for prefix, path in {**_KINDS, **only}.items()} for osname, only in _ONLY.items()}
"""The prefixes OSWorld's rules name, per `osname`: its _accessibility_ns_map."""


def _fuzzy(wanted: str, found: str | None) -> float:
    return fuzz.ratio(wanted, found) / 100.0


def _elements(tree: Any, rule: dict[str, Any], namespaces: dict[str, str]) -> Any:
    if "xpath" in rule:
        return tree.xpath(rule["xpath"], namespaces=namespaces)
    if "selectors" in rule:
        return CSSSelector(", ".join(rule["selectors"]), namespaces=namespaces)(tree)
    raise ValueError(f"the rule {rule!r} has neither xpath nor selectors")


@raising_as_osworld
def check_accessibility_tree(result: str | None, rules: Any, osname: str = "ubuntu", **options: Any) -> float:
    namespaces = NAMESPACES[osname]
    tree = lxml.etree.fromstring(result)
    score: Any = 1.0
    for rule in rules:
        elements = _elements(tree, rule, namespaces)
        if len(elements) == 0:
            return 0.0
        if "text" in rule:
            compare = operator.eq if rule["exact"] else _fuzzy
            best: Any = 0
            for element in elements:
                best = max(best, compare(rule["text"], element.text or None))
        else:
            best = 1.0
        score *= best
    return float(score)


ACCESSIBILITY_METRICS = {"check_accessibility_tree": check_accessibility_tree}
