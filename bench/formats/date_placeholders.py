"""The date placeholders OSWorld's and WAA's `rule_relativeTime` getters write a day into an expected
value with (their getters/misc.py `apply_rules_to_timeFormat`), each replaced once, in this order.

WAA's getter knows the first eight (`WAA_PLACEHOLDERS`); OSWorld's adds `{MonthD}`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")

Placeholder = tuple[str, Callable[[datetime], str]]

PLACEHOLDERS: tuple[Placeholder, ...] = (
    ("{DoW}", lambda day: _DAYS[day.weekday()]),
    ("{Month}", lambda day: _MONTHS[day.month - 1][:3]),
    ("{DayD}", lambda day: str(day.day)),
    ("{Year}", lambda day: str(day.year)),
    ("{Month0D}", lambda day: f"{day.month:02d}"),
    ("{month}", lambda day: _MONTHS[day.month - 1].lower()),
    ("{MonthFull}", lambda day: _MONTHS[day.month - 1]),
    ("{Day0D}", lambda day: f"{day.day:02d}"),
    ("{MonthD}", lambda day: str(day.month)),
)
WAA_PLACEHOLDERS = PLACEHOLDERS[:8]


def formatted(template: str, day: datetime, placeholders: tuple[Placeholder, ...] = PLACEHOLDERS) -> str:
    """`template` with the first of each placeholder replaced by `day`'s part."""
    for placeholder, part in placeholders:
        template = template.replace(placeholder, part(day), 1)
    return template
