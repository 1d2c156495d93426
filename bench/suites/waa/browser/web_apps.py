"""Edge's installed web app, read as WAA's `get_validate_pwa_installed` (getters/msedge.py) reads it.

WAA asks PowerShell for the installed app packages (`Get-AppxPackage |
Select-Object Name,PackageFullName | ConvertTo-Json`, through /execute as a
shell command) and answers "app_installed" when one's Name holds "pwabuilder"
(case aside: PWABuilder packages a site as an app), "app_not_installed" when
none does or nothing was printed, and "error" when anything on the way
raises: no answer from the guest, output that is not JSON, or a single
package, which ConvertTo-Json prints as an object rather than a list, so
that WAA's loop meets its keys instead of packages.
"""

from __future__ import annotations

import json
from typing import Any

from actors.backends.waa.client import WAAClient
from bench.suites.waa.guest import shell

INSTALLED_APPS = 'powershell -Command "Get-AppxPackage | Select-Object Name,PackageFullName | ConvertTo-Json"'


async def validate_pwa_installed(client: WAAClient, spec: dict[str, Any]) -> str:
    answer = await shell(client, INSTALLED_APPS)
    try:
        if answer["output"]:
            packages = json.loads(answer["output"])
            if [package for package in packages if "pwabuilder" in package["Name"].lower()]:
                return "app_installed"
    except Exception:  # noqa: BLE001 - WAA's getter answers "error" for whatever raises
        return "error"
    return "app_not_installed"


WEB_APP_GETTERS = {"validate_pwa_installed": validate_pwa_installed}
