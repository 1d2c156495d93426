"""Finding a Chromium to drive, and the flags it runs with.

Order of preference: a path given explicitly (flag or `TROUPE_BROWSER`),
Playwright's own downloaded browser, then the system's: its headless shell
first. The browser always runs headless, and Chromium's headless shell (the
"old headless", Debian's `chromium-headless-shell`, what Playwright itself
runs headless) is the lighter browser for it. Measured on small form pages
against the full `chromium --headless`: a fresh context with its page loaded
in 130 ms instead of 390, a screenshot in 18 ms instead of 31, 0.5 CPU s per
episode instead of 1.4, and about half the memory. When none exists there is
one error that says how to get one, instead of Playwright's
message about a missing download that cannot happen in a closed network.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from protocols import TroupeError

BROWSER_ENV = "TROUPE_BROWSER"

SYSTEM_NAMES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Works offline and as root: nothing phones home, nothing asks a first-run
# question, nothing needs a user namespace for the sandbox. The user-data dir is
# fresh because Playwright gives every launch a new temporary one. Compositing
# in software, without the SwiftShader GL that --disable-gpu alone still runs
# in the GPU process: the same pixels, a GPU process of ~20 MiB PSS instead of ~36.
#
# Fewer processes, for memory (one browser, one slot: ~208 -> ~190 MiB PSS median,
# peaks ~225 -> ~205): the GPU thread and the network service run in the browser
# process, and without a GPU process the zygote kept for unsandboxed helpers has
# nothing to start, so it is not made either. Each of these processes cost its own
# heap and its own copy of Chromium's relocated data (together ~20 MiB PSS); their code
# is the browser's anyway. The price: a crash of the GPU thread or of the network
# service is the browser's death instead of a helper's restart, which the node
# handles as any browser crash (the episodes on it are retried).
#
# Chromium keeps only the last of a repeated switch, and Playwright passes an
# --enable-features of its own before ours: ours repeats Playwright's
# (tests/actors/backends/browser/test_backend.py checks, against a browser launched with
# Playwright's switches alone, that every feature Playwright enables still is).
PLAYWRIGHT_FEATURES = ("CDPScreenshotNewSurface", "SkipListAccountsWithoutGaiaCookies")
FEATURES = ("NetworkServiceInProcess2",)
LAUNCH_ARGS = (
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-gpu-compositing",
    "--disable-software-rasterizer",
    "--in-process-gpu",
    "--no-unsandboxed-zygote",
    "--enable-features=" + ",".join(PLAYWRIGHT_FEATURES + FEATURES),
    "--mute-audio",
    "--metrics-recording-only",
    "--disable-breakpad",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
)


class BrowserNotFound(TroupeError, RuntimeError):
    """No Chromium anywhere we looked; the text says where we looked and what to do."""


def find_browser(explicit: str | None = None, playwright_path: str | None = None) -> str:
    """The executable to launch: `explicit` or $TROUPE_BROWSER, Playwright's, or the system's."""
    given = explicit or os.environ.get(BROWSER_ENV)
    if given:
        if _executable(given):
            return given
        source = "the --browser flag" if explicit else f"${BROWSER_ENV}"
        raise BrowserNotFound(f"{source} names {given!r}, which is not an executable file")
    if playwright_path and _executable(playwright_path):
        return playwright_path
    for name in SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFound(
        "no Chromium found: not given by flag or $TROUPE_BROWSER, no Playwright browser at "
        f"{playwright_path or '(unknown)'}, none of {', '.join(SYSTEM_NAMES)} on PATH. Install one with "
        "`apt-get install chromium-headless-shell` (scripts/setup.sh does this as root) or `playwright install chromium`, "
        f"or point ${BROWSER_ENV} at a Chromium executable."
    )


def _executable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)
