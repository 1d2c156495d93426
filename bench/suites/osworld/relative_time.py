"""`rule_relativeTime`: a task's expected value with days relative to today written in, as OSWorld's
getter writes them (its getters/misc.py).

Today is the VM's: the date the VM's Python prints for
`datetime.now().astimezone()`, unless the rules name a `timezone` (then now
in that zone; a zone it does not know reads as UTC). When the VM does not
answer, OSWorld asks a geolocation service for the host's zone
(`https://ipapi.co/json/`, 5 s) and falls back to UTC; so does troupe.

`rules.relativeTime.from` (and `to`, for a range) names the day; it is
written into `rules.expected.time` (a text, or each of a list), or `.from`
and `.to`, with the placeholders of bench.formats.date_placeholders; a
range from "next Monday split" fills `puDay`, `puMonth` and `puYear`, one to
"next Friday split" `doDay`, `doMonth` and `doYear`. Which names OSWorld
computes where is its own table (`_SINGLE`, `_FROM`, `_TO`): a name it
lists but does not compute in that place, or does not list at all, makes
its getter raise, and so does a month its arithmetic makes 0 ("first monday
four months later" asked in August): `GetterFailed` naming it.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone
from typing import Any, Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import httpx

from bench.formats.date_placeholders import formatted
from bench.suites.osworld.chrome import python_output
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed

VM_NOW = "from datetime import datetime; print(datetime.now().astimezone().isoformat())"
"""The program with which OSWorld's getter asks the VM for now."""
GEOLOCATION = "https://ipapi.co/json/"
"""Where OSWorld's getter asks for the host's time zone when the VM does not say what time it is."""
GEOLOCATION_TIMEOUT = 5.0
KNOWN = frozenset({"tomorrow", "5th next month", "10th next month", "11th next month", "this month", "this Saturday",
                   "this Sunday", "next Monday", "next Friday", "next Saturday", "next Sunday", "next week Friday",
                   "next week Saturday", "next week Sunday", "first monday four months later",
                   "first monday eight months later", "next Monday split", "next Friday split"})
"""The names OSWorld's table lists (`relativeTime_to_IntDay`); another raises there."""


def _next_month(now: datetime, day: int) -> datetime:
    return now.replace(year=now.year + (now.month == 12), month=now.month % 12 + 1, day=day, hour=0, minute=0,
                       second=0, microsecond=0)


def _first_monday(now: datetime, months: int, next_year_from: int) -> datetime:
    first = now.replace(year=now.year + (now.month >= next_year_from), month=(now.month + months) % 12, day=1,
                        hour=0, minute=0, second=0, microsecond=0)
    return first + timedelta(days=(7 - first.weekday()) % 7)


def _in_days(days: Callable[[int], int]) -> Callable[[datetime], datetime]:
    """A day `days(today's weekday)` after now."""
    return lambda now: now + timedelta(days=days(now.weekday()))


_NEXT_MONDAY = _in_days(lambda weekday: 7 - weekday)
_SINGLE: dict[str, Callable[[datetime], datetime]] = {
    "tomorrow": _in_days(lambda weekday: 1),
    "5th next month": lambda now: _next_month(now, 5),
    "10th next month": lambda now: _next_month(now, 10),
    "this month": lambda now: now,
    "next Monday": _NEXT_MONDAY,
    "first monday four months later": lambda now: _first_monday(now, 4, 9),
    "first monday eight months later": lambda now: _first_monday(now, 8, 5),
}
"""The days OSWorld computes as `from` alone."""
_FROM: dict[str, Callable[[datetime], datetime]] = {
    "tomorrow": _SINGLE["tomorrow"],
    "this Saturday": _in_days(lambda weekday: 5 - weekday),
    "10th next month": _SINGLE["10th next month"],
    "next Monday": _NEXT_MONDAY,
    "next Monday split": _NEXT_MONDAY,
    "next Friday": _in_days(lambda weekday: 4 - weekday if weekday < 4 else 7 if weekday == 4 else 11 - weekday),
    "next Saturday": _in_days(lambda weekday: 5 - weekday if weekday < 5 else 7 if weekday == 5 else 6),
    "next week Friday": _in_days(lambda weekday: 11 - weekday),
    "next week Saturday": _in_days(lambda weekday: 12 - weekday),
    "next week Sunday": _in_days(lambda weekday: 13 - weekday),
}
"""The days OSWorld computes as the `from` of a range."""


def _sunday_after(start: datetime) -> datetime:
    return start + timedelta(days=6 - start.weekday())


def _next_friday(now: datetime, start_name: str, start: datetime) -> datetime:
    if start_name in ("next Monday", "next Monday split"):
        return start + timedelta(days=4)
    return now + timedelta(days=4 - now.weekday() if now.weekday() < 4 else 11 - now.weekday())


def _next_sunday(now: datetime, start_name: str, start: datetime) -> datetime:
    if start_name in ("next Friday", "next Saturday"):
        return _sunday_after(start)
    return now + timedelta(days=6 - now.weekday() if now.weekday() < 6 else 7)


def _next_week_sunday(now: datetime, start_name: str, start: datetime) -> datetime:
    if start_name in ("next week Friday", "next week Saturday"):
        return _sunday_after(start)
    return now + timedelta(days=13 - now.weekday())


_TO: dict[str, Callable[[datetime, str, datetime], datetime]] = {
    "tomorrow": lambda now, start_name, start: now + timedelta(days=1),
    "this Sunday": lambda now, start_name, start: now + timedelta(days=6 - now.weekday()),
    "11th next month": lambda now, start_name, start: _next_month(now, 11),
    "next Friday": _next_friday,
    "next Friday split": _next_friday,
    "next Sunday": _next_sunday,
    "next week Sunday": _next_week_sunday,
}
"""The days OSWorld computes as the `to` of a range (some depend on the range's start)."""
_SPLIT = {"next Monday split": ("puDay", "puMonth", "puYear"), "next Friday split": ("doDay", "doMonth", "doYear")}
"""The range ends whose day OSWorld writes into three fields (day, month, year) instead of `from` / `to`."""


def _day(table: dict[str, Callable[..., datetime]], name: Any, place: str, *args: Any) -> datetime:
    if name not in KNOWN:
        raise GetterFailed(f"rule_relativeTime: {name!r} is not a day OSWorld's getter knows (it raises here)")
    if name not in table:
        raise GetterFailed(f"rule_relativeTime: OSWorld's getter does not compute {name!r} as {place} (it raises "
                           f"here; it does: {', '.join(sorted(table))})")
    try:
        return table[name](*args)
    except ValueError as exc:
        raise GetterFailed(f"rule_relativeTime: OSWorld's date for {name!r} is not a date today ({exc}; it "
                           "raises here)") from None


def _written(template: Any, day: datetime, field: str) -> str:
    if not isinstance(template, str):
        raise GetterFailed(f"rule_relativeTime: expected.{field} is {template!r}, not a text to write the day "
                           "into (OSWorld's getter raises here)")
    return formatted(template, day)


def _fill_end(expected: dict[str, Any], name: str, day: datetime, field: str) -> None:
    for key in _SPLIT.get(name, (field,)):
        expected[key] = _written(expected.get(key), day, key)


def fill(rules: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The rules with the days they name relative to `now` written into `expected`."""
    try:
        rules = copy.deepcopy(rules)
        relative, expected = rules["relativeTime"], rules["expected"]
        if "to" not in relative:
            day = _day(_SINGLE, relative["from"], "a day alone", now)
            time = expected["time"]
            expected["time"] = ([_written(t, day, "time") for t in time] if isinstance(time, list)
                                else _written(time, day, "time"))
            return rules
        start_name, end_name = relative["from"], relative["to"]
        start = _day(_FROM, start_name, "the start of a range", now)
        _fill_end(expected, start_name, start, "from")
        _fill_end(expected, end_name, _day(_TO, end_name, "the end of a range", now, start_name, start), "to")
        return rules
    except (KeyError, TypeError, AttributeError) as exc:
        raise GetterFailed(f"rule_relativeTime: the rules lack what OSWorld's getter reads ({type(exc).__name__}: "
                           f"{exc}; it raises here)") from None


def zone_named(name: Any) -> Any:
    """The zone pytz gives for `name` (any case), UTC for one it does not know, as OSWorld's getter reads it."""
    if name is not None and not isinstance(name, str):
        raise GetterFailed(f"rule_relativeTime: timezone {name!r} is not a zone's name (OSWorld's getter raises here)")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        pass
    folded = {zone.lower(): zone for zone in available_timezones()}.get((name or "").lower())
    return ZoneInfo(folded) if folded else timezone.utc


async def _vm_now(episode: Episode) -> datetime | None:
    try:
        return datetime.fromisoformat((await python_output(episode, VM_NOW)).strip())
    except (GetterFailed, KeyError, TypeError, ValueError, AttributeError):
        return None  # OSWorld's getter falls back to the host's zone on any failure here


async def _host_zone() -> str:
    try:
        async with httpx.AsyncClient(timeout=GEOLOCATION_TIMEOUT) as web:
            response = await web.get(GEOLOCATION)
        found = response.json().get("timezone") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        found = None
    return found or "UTC"


async def now_for(episode: Episode, rules: dict[str, Any]) -> datetime:
    """Now as OSWorld's getter takes it for these rules."""
    if rules.get("timezone"):
        return datetime.now(zone_named(rules["timezone"]))
    found = await _vm_now(episode)
    if found is not None:
        return found
    return datetime.now(zone_named(rules["timezone"] if "timezone" in rules else await _host_zone()))


async def rule_relative_time(episode: Episode, spec: dict[str, Any]) -> dict[str, Any]:
    rules = spec["rules"]
    if not isinstance(rules, dict):
        raise GetterFailed(f"rule_relativeTime: rules is {rules!r}, not an object (OSWorld's getter raises here)")
    return fill(rules, await now_for(episode, rules))


RELATIVE_TIME_GETTERS = {"rule_relativeTime": rule_relative_time}
