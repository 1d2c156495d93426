"""Chrome and Edge in WAA's tasks: what WAA's client does to and reads from the VM's browser.

- `profile`: where the profile's files are on the VM (Windows, or the Linux server);
- `preferences`: getters of the profile's JSON files (Preferences, Local State, Bookmarks, ...);
- `history`: the History and Cookies databases (the history setup steps, their getters);
- `devtools`: Playwright over the DevTools protocol, on any event loop; `tabs`: the
  steps and getters that go through it (open and close tabs, pages, a page as PDF);
- `web_apps`: Edge's installed web app (WAA's PWA check);
- `address_bar`: the active tab's URL from the accessibility tree; `relative_time`:
  expected dates relative to today; `shortcuts`: shortcuts on the desktop;
- `metrics` (with `pdfs` and `urls`): the scores.

The registries (setup.STEPS, getters.GETTERS, metrics.METRICS) take these by name.
"""

from bench.suites.waa.browser.address_bar import ADDRESS_BAR_GETTERS
from bench.suites.waa.browser.history import HISTORY_GETTERS, HISTORY_STEPS
from bench.suites.waa.browser.metrics import BROWSER_METRICS
from bench.suites.waa.browser.preferences import PREFERENCE_GETTERS
from bench.suites.waa.browser.relative_time import RELATIVE_TIME_GETTERS
from bench.suites.waa.browser.shortcuts import SHORTCUT_GETTERS
from bench.suites.waa.browser.tabs import TAB_GETTERS, TAB_STEPS
from bench.suites.waa.browser.web_apps import WEB_APP_GETTERS

BROWSER_STEPS = {**TAB_STEPS, **HISTORY_STEPS}
BROWSER_GETTERS = {**PREFERENCE_GETTERS, **HISTORY_GETTERS, **TAB_GETTERS, **ADDRESS_BAR_GETTERS,
                   **RELATIVE_TIME_GETTERS, **SHORTCUT_GETTERS, **WEB_APP_GETTERS}

__all__ = ["BROWSER_GETTERS", "BROWSER_METRICS", "BROWSER_STEPS"]
