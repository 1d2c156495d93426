"""Where Chrome's and Edge's profile files are on the VM, found as WAA's getters find them.

WAA asks the guest's Python for %LOCALAPPDATA% (Windows) or $HOME (Linux) and
joins the browser's folders to it, spelled as each getter spells them (some
with forward slashes: the Windows server opens either). troupe asks the
server for its platform (/platform, which answers what Python's
`platform.system()` does) and for the desktop folder (/desktop_path), whose
parent is the home folder; %LOCALAPPDATA% is the home's AppData\\Local, as
on every WAA VM. The Linux WAA server answers "Linux" and a desktop in its
session's home, so the Linux paths WAA's getters use (~/.config/google-chrome,
~/.config/microsoft-edge) resolve there.

WAA reads Edge's Preferences and Secure Preferences on Windows only (its
getters raise on any other platform), and macOS, which no WAA VM runs, is not
carried over: both are `GetterFailed`.
"""

from __future__ import annotations

import ntpath
import posixpath
from dataclasses import dataclass

from actors.backends.waa.client import WAAClient
from bench.suites.waa.errors import GetterFailed

WINDOWS, LINUX = "Windows", "Linux"


@dataclass(frozen=True)
class ProfileFile:
    """One file of a browser's profile: under %LOCALAPPDATA% on Windows, under $HOME on Linux
    (None where WAA reads it on Windows only), as WAA spells each."""

    name: str
    windows: str
    linux: str | None


CHROME_PREFERENCES = ProfileFile("Chrome's Preferences", "Google/Chrome/User Data/Default/Preferences",
                                 ".config/google-chrome/Default/Preferences")
CHROME_LOCAL_STATE = ProfileFile("Chrome's Local State", "Google/Chrome/User Data/Local State",
                                 ".config/google-chrome/Local State")
CHROME_BOOKMARKS = ProfileFile("Chrome's Bookmarks", "Google/Chrome/User Data/Default/Bookmarks",
                               ".config/google-chrome/Default/Bookmarks")
CHROME_HISTORY = ProfileFile("Chrome's History", "Google\\Chrome\\User Data\\Default\\History",
                             ".config/google-chrome/Default/History")
CHROME_COOKIES = ProfileFile("Chrome's Cookies", "Google/Chrome/User Data/Default/Network/Cookies",
                             ".config/google-chrome/Default/Cookies")
EDGE_PREFERENCES = ProfileFile("Edge's Preferences", "Microsoft/Edge/User Data/Default/Preferences", None)
EDGE_SECURE_PREFERENCES = ProfileFile("Edge's Secure Preferences",
                                      "Microsoft/Edge/User Data/Default/Secure Preferences", None)
EDGE_WEB_APPS = ProfileFile("Edge's installed web apps", "Microsoft/Edge/User Data/Default/Web Applications/"
                            "Manifest Resources", None)
EDGE_BOOKMARKS = ProfileFile("Edge's Bookmarks", "Microsoft/Edge/User Data/Default/Bookmarks",
                             ".config/microsoft-edge/Default/Bookmarks")
EDGE_HISTORY = ProfileFile("Edge's History", "Microsoft\\Edge\\User Data\\Default\\History",
                           ".config/microsoft-edge/Default/History")
EDGE_COOKIES = ProfileFile("Edge's Cookies", "Microsoft/Edge/User Data/Default/Network/Cookies",
                           ".config/microsoft-edge/Default/Cookies")


async def vm_platform(client: WAAClient) -> str:
    response = await client.get("/platform")
    if response.status_code != 200:
        raise GetterFailed(f"/platform: HTTP {response.status_code}: {response.text[:200]}")
    return response.text.strip()


async def home_folder(client: WAAClient) -> str:
    """The user's home: the parent of the desktop folder the server reports."""
    response = await client.post("/desktop_path")
    if response.status_code != 200:
        raise GetterFailed(f"/desktop_path: HTTP {response.status_code}: {response.text[:200]}")
    desktop = response.json()["desktop_path"]
    flavour = ntpath if "\\" in desktop else posixpath
    return flavour.dirname(desktop.rstrip("\\/"))


async def locate(client: WAAClient, file: ProfileFile) -> str:
    """The file's path on the VM, as WAA's getter names it."""
    platform = await vm_platform(client)
    if platform == WINDOWS:
        return ntpath.join(await home_folder(client), "AppData\\Local", file.windows)
    if platform == LINUX and file.linux is not None:
        return posixpath.join(await home_folder(client), file.linux)
    raise GetterFailed(f"{file.name}: WAA's getter reads it on {'Windows' if file.linux is None else 'Windows and Linux'} "
                       f"only, and the VM runs {platform!r}")
