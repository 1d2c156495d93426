"""`rule_relativeTime`: a task's expected value with dates relative to today filled in, as WAA's
getter fills them (its getters/misc.py).

`rules.relativeTime.from` (and `to`, when the task gives a range) names a
day relative to the host's local date; the day is written into
`rules.expected.time` (or `.from` and `.to`) through WAA's placeholders:
{DoW} (Mon), {Month} (Jan), {DayD} (5), {Year}, {Month0D} (01), {month}
(january), {MonthFull} (January), {Day0D} (05), each replaced once
(bench.formats.date_placeholders). "next
Monday" is the Monday after today, a week ahead on a Monday. A day name WAA
does not know is its crash (`GetterFailed` naming it); so is "first monday
four months later" asked in August, which WAA turns into month 0.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any, Callable

from actors.backends.waa.client import WAAClient
from bench.formats.date_placeholders import WAA_PLACEHOLDERS, formatted
from bench.suites.waa.errors import GetterFailed


def _next_month(now: datetime, day: int) -> datetime:
    return datetime(now.year + (now.month == 12), now.month % 12 + 1, day)


def _first_monday_four_months_later(now: datetime) -> datetime:
    first = datetime(now.year + (now.month >= 9), (now.month + 4) % 12, 1)
    return first + timedelta(days=(7 - first.weekday()) % 7)


def _next_friday(now: datetime, start: str) -> datetime:
    if now.weekday() < 4 and start == "next Monday":
        return now + timedelta(days=4 - now.weekday() + 7)
    return now + timedelta(days=4 - now.weekday() if now.weekday() < 4 else 6 - now.weekday() + 5)


_SINGLE: dict[str, Callable[[datetime], datetime]] = {
    "tomorrow": lambda now: now + timedelta(days=1),
    "5th next month": lambda now: _next_month(now, 5),
    "10th next month": lambda now: _next_month(now, 10),
    "this month": lambda now: now,
    "next Monday": lambda now: now + timedelta(days=7 - now.weekday()),
    "first monday four months later": _first_monday_four_months_later,
}
"""The days WAA knows as `from` alone."""
_FROM: dict[str, Callable[[datetime], datetime]] = {
    "tomorrow": _SINGLE["tomorrow"],
    "this Saturday": lambda now: now + timedelta(days=5 - now.weekday()),
    "10th next month": _SINGLE["10th next month"],
    "next Monday": _SINGLE["next Monday"],
}
"""The days WAA knows as the `from` of a range."""
_TO: dict[str, Callable[[datetime, str], datetime]] = {
    "tomorrow": lambda now, start: now + timedelta(days=1),
    "this Sunday": lambda now, start: now + timedelta(days=6 - now.weekday()),
    "11th next month": lambda now, start: _next_month(now, 11),
    "next Friday": _next_friday,
}
"""The days WAA knows as the `to` of a range (next Friday depends on the range's start)."""


def _day(table: dict[str, Callable[..., datetime]], name: str, *args: Any) -> datetime:
    if name not in table:
        raise GetterFailed(f"rule_relativeTime: WAA does not know the day {name!r} here (it knows {sorted(table)})")
    try:
        return table[name](*args)
    except ValueError as exc:
        raise GetterFailed(f"rule_relativeTime: WAA's date for {name!r} is not a date today ({exc})") from None


def fill(rules: dict[str, Any], now: datetime) -> dict[str, Any]:
    rules = copy.deepcopy(rules)
    relative, expected = rules["relativeTime"], rules["expected"]
    if "to" not in relative:
        expected["time"] = formatted(expected["time"], _day(_SINGLE, relative["from"], now), WAA_PLACEHOLDERS)
    else:
        expected["from"] = formatted(expected["from"], _day(_FROM, relative["from"], now), WAA_PLACEHOLDERS)
        expected["to"] = formatted(expected["to"], _day(_TO, relative["to"], now, relative["from"]),
                                   WAA_PLACEHOLDERS)
    return rules


async def rule_relative_time(client: WAAClient, spec: dict[str, Any]) -> dict[str, Any]:
    return fill(spec["rules"], datetime.now())


RELATIVE_TIME_GETTERS = {"rule_relativeTime": rule_relative_time}
