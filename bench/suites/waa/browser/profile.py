"""Where Chrome's and Edge's profile files are on the VM, found as WAA's getters find them.

WAA asks the guest's Python for %LOCALAPPDATA% (Windows) or $HOME (Linux) and
joins the browser's folders to it, spelled as each getter spells them (some
with forward slashes: the Windows server opens either). troupe asks the
guest's Python for its platform as WAA does (`vm_platform`); on Windows it
then runs WAA's own program for the path (so a guest whose /execute fails fails here too, as WAA's getter does);
on Linux, whose WAA server runs pyautogui programs only, the home folder is
the parent of the desktop folder (/desktop_path), where the Linux paths WAA's
getters use (~/.config/google-chrome, ~/.config/microsoft-edge) resolve.

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
from actors.backends.waa.commands import command as pyautogui_command
from bench.suites.waa.guest import python

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
EDGE_BOOKMARKS = ProfileFile("Edge's Bookmarks", "Microsoft/Edge/User Data/Default/Bookmarks",
                             ".config/microsoft-edge/Default/Bookmarks")
EDGE_HISTORY = ProfileFile("Edge's History", "Microsoft\\Edge\\User Data\\Default\\History",
                           ".config/microsoft-edge/Default/History")
EDGE_COOKIES = ProfileFile("Edge's Cookies", "Microsoft/Edge/User Data/Default/Network/Cookies",
                           ".config/microsoft-edge/Default/Cookies")


PLATFORM = "import platform; print(platform.system())"
"""WAA's `env.vm_platform`: the guest's Python says which system it runs."""


async def vm_platform(client: WAAClient) -> str:
    """The guest's system as WAA's `env.vm_platform` asks it, through /execute (so a guest whose
    /execute fails fails here, as WAA's getters do); a server that refuses the program (400: the
    Linux WAA server runs pyautogui programs only) is asked /platform, which says the same."""
    response = await client.post("/execute", json={"command": pyautogui_command(PLATFORM), "shell": False},
                                 answer_server_errors=True)
    if response.status_code == 400:
        response = await client.get("/platform")
        if response.status_code != 200:
            raise GetterFailed(f"/platform: HTTP {response.status_code}: {response.text[:200]}")
        return response.text.strip()
    try:
        return response.json()["output"].strip()
    except (ValueError, KeyError, TypeError, AttributeError):
        raise GetterFailed(f"the guest's platform: /execute answered HTTP {response.status_code}: "
                           f"{response.text[:200]}") from None


async def home_folder(client: WAAClient) -> str:
    """The user's home: the parent of the desktop folder the server reports."""
    response = await client.post("/desktop_path")
    if response.status_code != 200:
        raise GetterFailed(f"/desktop_path: HTTP {response.status_code}: {response.text[:200]}")
    desktop = response.json()["desktop_path"]
    flavour = ntpath if "\\" in desktop else posixpath
    return flavour.dirname(desktop.rstrip("\\/"))


def windows_program(file: ProfileFile) -> str:
    """WAA's program printing the file's Windows path: under %LOCALAPPDATA%, or for History
    (spelled with backslashes here) %USERPROFILE% joined to each folder."""
    if "\\" not in file.windows:
        return f"import os; print(os.path.join(os.getenv('LOCALAPPDATA'), '{file.windows}'))"
    parts = ", ".join(f'"{part}"' for part in ["AppData", "Local", *file.windows.split("\\")])
    return f"import os; print(os.path.join(os.getenv('USERPROFILE'), {parts}))"


async def locate(client: WAAClient, file: ProfileFile) -> str:
    """The file's path on the VM, as WAA's getter names it."""
    platform = await vm_platform(client)
    if platform == WINDOWS:
        answer = await python(client, windows_program(file))
        if not isinstance(answer, dict) or not isinstance(answer.get("output"), str):
            raise GetterFailed(f"{file.name}: the guest's Python did not say where it is ({answer!r})")
        return answer["output"].strip()
    if platform == LINUX and file.linux is not None:
        return posixpath.join(await home_folder(client), file.linux)
    raise GetterFailed(f"{file.name}: WAA's getter reads it on {'Windows' if file.linux is None else 'Windows and Linux'} "
                       f"only, and the VM runs {platform!r}")
