"""Windows settings getters: what WAA's settings.py reads from a guest's registry.

Each sends the PowerShell command line WAA sends (guest.shell) and reads its
output as WAA does; the values are compared with `exact_match` against the
task's rule.

- `system_timezone`: `Get-TimeZone | ... | ConvertTo-Json`; the DisplayName
  (Windows PowerShell writes "&" as "\\u0026", which JSON reads back) when
  it and the StandardName are both there, else "Unable to get time zone";
  an answer that is not that JSON object: "Error getting the timezone";
- `night_light_state`: the bytes of bluelightreduction's `Data` value, one
  decimal a line: byte 24 is 1 when the night light is on; byte 28 is the
  schedule's start hour unless it is 202 (no schedule: `[True]`), with the
  start minute after a 46 marker, then the end hour and minute at offsets
  that shift by two when the start has minutes: `[True, "07:00 PM",
  "07:00 AM"]`. Off is False. Noon reads "00:00 PM", as WAA formats it;
- `storage_sense_run_frequency`: StoragePolicy's `2048` value ("7" for
  weekly) when its `01` value prints exactly "1\\n", else None;
- `desktop_background`: "True" when the `WallPaper` value prints nothing
  (a solid colour, or no such value), else "False";
- `system_notifications`: "True" when `ToastEnabled` prints 0, "False" when
  the command failed or printed nothing, and None (which matches no rule)
  when it printed anything else, as WAA's function then returns nothing;
- `vm_wallpaper`: the wallpaper image's bytes through WAA's /wallpaper.

WAA raises where the answer is missing or shorter than what it indexes (an
unset night light value prints nothing): `GetterCrash`, whose
`unread-answer` fix reads the setting as off.
"""

from __future__ import annotations

import json
from typing import Any

from actors.backends.waa.client import WAAClient
from bench.suites.waa.guest import output_of, registry_command, shell, unread

TIMEZONE = "powershell -Command \"Get-TimeZone | Select-Object -Property DisplayName, StandardName | ConvertTo-Json\""
NIGHT_LIGHT = ("HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\CloudStore\\Store\\DefaultAccount\\Current\\"
               "default$windows.data.bluelightreduction.settings\\windows.data.bluelightreduction.settings", "Data")
STORAGE_POLICY = "HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\StorageSense\\Parameters\\StoragePolicy"
WALLPAPER = ("HKCU:Control Panel\\Desktop", "WallPaper")
TOASTS = ("HKCU:Software\\Microsoft\\Windows\\CurrentVersion\\PushNotifications", "ToastEnabled")

NO_SCHEDULE = 202
"""The byte that stands where the start hour would be when the night light has no schedule."""
MINUTE_MARKER = "0"
"""A start or end hour followed by this line has no minutes (otherwise a 46 marker and the minutes follow)."""


async def system_timezone(client: WAAClient, spec: dict[str, Any]) -> str:
    answer = await shell(client, TIMEZONE)
    try:
        data = json.loads(answer["output"])  # type: ignore[index]
        names = data.get("DisplayName"), data.get("StandardName")
    except (TypeError, KeyError, ValueError, AttributeError):
        return "Error getting the timezone"
    return names[0] if names[0] and names[1] else "Unable to get time zone"


def _clock(hour: int, minute: int) -> str:
    """WAA's generate_time: 12-hour time where noon to 12:59 read "00:MM PM"."""
    return f"{hour:02d}:{minute:02d} AM" if hour < 12 else f"{hour - 12:02d}:{minute:02d} PM"


def _night_light(lines: list[str]) -> list[Any] | bool:
    def at(index: int) -> str:
        if index >= len(lines):
            unread(f"night_light_state: the Data value has {len(lines)} lines, WAA reads line {index}", False)
        return lines[index]

    def number(index: int) -> int:
        try:
            return int(at(index))
        except ValueError:
            unread(f"night_light_state: line {index} of the Data value is {at(index)!r}, not a number", False)

    if at(24) != "1":
        return False
    start_hour = number(28)
    if start_hour == NO_SCHEDULE:
        return [True]
    start_minute = number(30) if at(29) != MINUTE_MARKER else 0
    end = 33 if start_minute == 0 else 35
    end_hour = number(end)
    end_minute = number(end + 2) if at(end + 1) != MINUTE_MARKER else 0
    return [True, _clock(start_hour, start_minute), _clock(end_hour, end_minute)]


async def night_light_state(client: WAAClient, spec: dict[str, Any]) -> list[Any] | bool:
    output = output_of(await shell(client, registry_command(*NIGHT_LIGHT)), "night_light_state", False)
    return _night_light(output.split("\n"))


async def storage_sense_run_frequency(client: WAAClient, spec: dict[str, Any]) -> str | None:
    enabled = await shell(client, registry_command(STORAGE_POLICY, "01"))
    if enabled is None:
        unread("storage_sense_run_frequency: the command reading StoragePolicy's 01 value gave no answer")
    if enabled.get("status") != "success" or enabled.get("output") != "1\n":
        return None
    frequency = await shell(client, registry_command(STORAGE_POLICY, "2048"))
    if frequency is None:
        unread("storage_sense_run_frequency: the command reading StoragePolicy's 2048 value gave no answer")
    if frequency.get("status") != "success":
        return None
    return output_of(frequency, "storage_sense_run_frequency", None).split("\n")[0]


async def desktop_background(client: WAAClient, spec: dict[str, Any]) -> str:
    output = output_of(await shell(client, registry_command(*WALLPAPER)), "desktop_background", "False")
    return "True" if output.replace("\n", "") == "" else "False"


async def system_notifications(client: WAAClient, spec: dict[str, Any]) -> str | None:
    answer = await shell(client, registry_command(*TOASTS))
    if answer is None or answer.get("output") == "":
        return "False"
    if answer.get("output"):
        return "True" if answer["output"].replace("\n", "") == "0" else None
    return "False"


async def vm_wallpaper(client: WAAClient, spec: dict[str, Any]) -> bytes:
    """WAA writes what /wallpaper answered to a file, which raises when it answered anything but 200."""
    response = await client.post("/wallpaper", answer_server_errors=True)
    if response.status_code != 200:
        unread(f"vm_wallpaper: /wallpaper answered HTTP {response.status_code}: {response.text[:200]}")
    return response.content


SETTINGS_GETTERS = {
    "system_timezone": system_timezone,
    "night_light_state": night_light_state,
    "storage_sense_run_frequency": storage_sense_run_frequency,
    "desktop_background": desktop_background,
    "system_notifications": system_notifications,
    "vm_wallpaper": vm_wallpaper,
}
