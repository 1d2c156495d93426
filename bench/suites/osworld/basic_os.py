"""The desktop's own state as OSWorld's metrics/basic_os.py checks it.

- `is_in_vm_clickboard`: the task's rule (`result`) names the text
  (`expected`: a string, or a list of strings that must all be there) and
  the clipboard as `xsel --clipboard --output` printed it (`expected` side,
  a `vm_command_line` getter) must contain it; no output (the command
  failed) raises, as OSWorld's `in` does, except that an empty list holds;
- `check_moved_jpgs`: the names directly in the folder `list_directory`
  read (files and folders alike) are exactly `expected`, as a set of the
  same size; no listing (the folder is not there) raises, as OSWorld's does.
"""

from __future__ import annotations

from typing import Any

from bench.suites.osworld.errors import MetricFailed


def _field(value: Any, key: str, func: str) -> Any:
    try:
        return value[key]
    except (KeyError, TypeError, IndexError):
        raise MetricFailed(f"{func}: expected a value with `{key}`, got {value!r} "
                           "(OSWorld's function raises here)") from None


def is_in_vm_clickboard(rules: Any, clipboard: Any, **options: Any) -> float:
    wanted = _field(rules, "expected", "is_in_vm_clickboard")
    try:
        if not isinstance(wanted, list):
            return float(wanted in clipboard)
        return float(all(text in clipboard for text in wanted))
    except TypeError as exc:
        raise MetricFailed(f"is_in_vm_clickboard: the clipboard was not read ({exc}) "
                           "(OSWorld's function raises here)") from None


def check_moved_jpgs(listing: Any, rules: Any, **options: Any) -> float:
    wanted = _field(rules, "expected", "check_moved_jpgs")
    moved = [_field(node, "name", "check_moved_jpgs") for node in _field(listing, "children", "check_moved_jpgs")]
    return float(len(moved) == len(wanted) and set(moved) == set(wanted))


BASIC_OS_METRICS = {"is_in_vm_clickboard": is_in_vm_clickboard, "check_moved_jpgs": check_moved_jpgs}
