"""What OSWorld's 20 s sleep before evaluation waits for, waited for as a condition: settings an
application has yet to write.

OSWorld's harness sleeps 20 s between the agent's last step and `evaluate()`
(its postconfig, then its getters). troupe evaluates at once, so a setting an
application writes some time after the agent changed it would be read old:
LibreOffice writes a changed option to registrymodifications.xcu about 1 s
after the Options dialog's OK, from a thread it starts for that write and
names `configmgrWriter` (its configmgr's WriteThread, which waits 1 s and
then writes). So before the postconfig, troupe waits while such a thread of
this desktop's applications is alive: one command through /execute, the
same on troupe's local desktops and on an OSWorld VM, answered at once when
nothing is pending; at most SETTLE_SECONDS.

The other applications whose settings the getters read need no wait here:
VLC writes vlcrc when its preferences are saved; GIMP writes gimprc and
sessionrc, and Thunderbird prefs.js and its folders, when they quit, which
the tasks' postconfig makes them do (Ctrl+Q, close_window) in both
harnesses. Chrome writes Preferences and Bookmarks seconds after a change and
when it quits, which most of its tasks' postconfigs make it do (`pkill
chrome`); for the tasks that read them with Chrome running, troupe waits for
the files to hold what Chrome holds (chrome_settling.py).
"""

from __future__ import annotations

from typing import Any

import anyio

from bench.suites.osworld.chrome_settling import settle_chrome
from bench.suites.osworld.episode import Episode

PENDING_WRITERS = {"configmgrWriter": "LibreOffice's settings (registrymodifications.xcu)"}
"""Threads that are alive while an application's settings are yet to be written, by name (as
/proc/PID/task/TID/comm reads it), and what they write."""
SETTLE_SECONDS = 10.0
"""At most this long is waited for pending writes (LibreOffice's takes about 1 s)."""
SETTLE_INTERVAL = 0.1

PENDING = ("for f in $(grep -lxF " + " ".join(f"-e {name}" for name in PENDING_WRITERS)
           + " /proc/[0-9]*/task/[0-9]*/comm 2>/dev/null); do "
           'if [ -z "$DISPLAY" ] || tr "\\000" "\\n" < "${f%/task/*}/environ" 2>/dev/null '
           '| grep -qxF "DISPLAY=$DISPLAY"; then cat "$f"; fi; done')
"""A shell command printing the name of each pending writer thread of this desktop's applications
(those whose environment names the display the command runs on: not another episode's on this machine)."""


async def pending_writes(episode: Episode) -> set[str]:
    """The writer threads alive on the episode's desktop; none when the server does not run the command."""
    response = await episode.client.post("/execute", json={"command": PENDING, "shell": True},
                                         answer_server_errors=True)
    try:
        output = response.json().get("output") if response.status_code == 200 else ""
    except (ValueError, AttributeError):
        output = ""
    return {line.strip() for line in str(output or "").splitlines()} & set(PENDING_WRITERS)


async def settle(episode: Episode, spec: dict[str, Any]) -> str:
    """Wait until no settings write is pending on the episode's desktop (at most SETTLE_SECONDS) and the
    Chrome profile files the evaluation `spec` reads hold what Chrome holds; what was waited for and how
    long, or "" when nothing was pending."""
    return "; ".join(note for note in [await settle_settings(episode), await settle_chrome(episode, spec)] if note)


async def settle_settings(episode: Episode) -> str:
    """Wait until no settings write is pending on the episode's desktop (at most SETTLE_SECONDS); what
    was waited for and how long, or "" when nothing was pending."""
    started = anyio.current_time()
    waited: set[str] = set()
    pending: set[str] = set()
    with anyio.move_on_after(SETTLE_SECONDS):
        while pending := await pending_writes(episode):
            waited |= pending
            await anyio.sleep(SETTLE_INTERVAL)
    if not waited:
        return ""
    seconds = anyio.current_time() - started
    what = ", ".join(PENDING_WRITERS[name] for name in sorted(waited))
    if pending:
        return f"{what} still unwritten after {seconds:.1f} s; evaluated anyway"
    return f"waited {seconds:.1f} s for {what} to be written"
