"""GNOME's state in the os tasks, as OSWorld's metrics/basic_os.py judges what its getters printed (the
tasks read it with gsettings and timedatectl on the VM, which has a GNOME session and systemd).

- `check_gnome_favorite_apps`: gsettings' list of favourite apps (its text,
  as Python's literal syntax writes a list of strings) holds the expected
  apps, as many and the same set; 1 or 0. OSWorld `eval`s that text in its
  own process; troupe reads it with `ast.literal_eval`, which gives the
  same value for every literal and runs nothing: text that is not a literal
  (gsettings' `@as []` for no favourites, or code) raises, as `eval` raises
  on the former;
- `is_utc_0`: the fourth line of `timedatectl status` (its "Time zone:"
  line) ends with "+0000)"; 1 or 0. Fewer lines, or no output, raise, as
  OSWorld's function does.
"""

from __future__ import annotations

import ast
from typing import Any

from bench.suites.osworld.errors import MetricFailed, raising_as_osworld


def _literal(text: Any) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise MetricFailed(f"check_gnome_favorite_apps: {text!r} is not a Python literal ({type(exc).__name__}); "
                           "OSWorld's function evals it, and raises on what is not an expression") from None


@raising_as_osworld
def check_gnome_favorite_apps(apps_text: Any, rule: Any, **options: Any) -> int:
    apps = _literal(apps_text)
    expected = rule["expected"]
    if len(apps) != len(expected):
        return 0
    return int(set(apps) == set(expected))


@raising_as_osworld
def is_utc_0(timedatectl_output: Any, **options: Any) -> int:
    return int(timedatectl_output.split("\n")[3].endswith("+0000)"))


GNOME_METRICS = {"check_gnome_favorite_apps": check_gnome_favorite_apps, "is_utc_0": is_utc_0}
