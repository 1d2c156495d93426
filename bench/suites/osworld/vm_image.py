"""What OSWorld's VM image holds in its user's home that a fresh local home does not, and that its
tasks' untouched state is read from.

On OSWorld's image VLC and LibreOffice have run before: VLC's vlcrc is there
(its `vlc_config` getter raises on none, so on a home without one an
untouched VLC task gets a score or none depending on whether VLC wrote its
file yet), has VLC's first-run privacy question answered and turns VLC's
web interface on with the password OSWorld's `vlc_playing_info` getter
sends (here bound to 127.0.0.1, on the port the episode's client names:
`WAAClient.vlc`); LibreOffice starts with no first-run Tip of the Day dialog
(a libreoffice_impress task's setup presses keys into the document a few
seconds after launching it, which such a dialog would take) and saves a
.pptx, .docx or .xlsx with Ctrl+S without asking whether to keep the format
(OSWorld's evaluator README: "enable the no pop-up when 'ctrl + s'"; the
postconfig of most LibreOffice tasks is that Ctrl+S, which otherwise leaves
the agent's unsaved work in a "Confirm File Format" dialog); and a text file
opens in a text editor (GNOME's; here mousepad stands in), where Debian's
LibreOffice Writer, once installed, claims text/plain; and Chrome has a
profile, whose Preferences a task's setup edits in place (3299584d's `jq`
sets the funbrain.com startup page there; others write `{}` when there is
none, as here). `furnish` puts them
in a fresh home before a task's setup: the vlcrc with every option at its
default (bench.formats.vlcrc.UNCHANGED) but those (`vlc_settings`),
LibreOffice's user settings with the tip and the format warning turned off,
the text editor as text/plain's application, and an empty Chrome Preferences.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from bench.formats.vlcrc import UNCHANGED as UNCHANGED_VLCRC
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.vlc_status import VLC_WEB_PASSWORD

LIBREOFFICE_SETTINGS = """\
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false\
</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse">\
<value>false</value></prop></item>
</oor:items>
"""
"""LibreOffice's registrymodifications.xcu once its Tip of the Day and its warning on saving in a format
other than ODF have been turned off."""
MIME_DEFAULTS = "[Default Applications]\ntext/plain=mousepad.desktop\n"
"""mimeapps.list: what xdg-open (the `open` step) starts for a text file."""
VLCRC = "/home/user/.config/vlc/vlcrc"
HOME_FILES = {
    "/home/user/.config/libreoffice/4/user/registrymodifications.xcu": LIBREOFFICE_SETTINGS,
    "/home/user/.config/mimeapps.list": MIME_DEFAULTS,
    "/home/user/.config/google-chrome/Default/Preferences": "{}",
}


def vlc_settings(port: int) -> str:
    """vlcrc's lines for what VLC has on OSWorld's image: its first-run privacy question answered (else a
    "Privacy and Network Access Policy" dialog opens before anything, and is the first window of VLC's
    class), its web interface (Lua HTTP) on, here on 127.0.0.1:`port`, with OSWorld's password."""
    return (f"qt-privacy-ask=0\nextraintf=http\nhttp-host=127.0.0.1\nhttp-port={port}\n"
            f"http-password={VLC_WEB_PASSWORD}\n")


async def furnish(episode: Episode) -> None:
    """The image's files in the episode's fresh home, through /setup/upload."""
    vlcrc = UNCHANGED_VLCRC + vlc_settings(urlsplit(episode.client.vlc).port)
    for path, text in {VLCRC: vlcrc, **HOME_FILES}.items():
        await episode.upload(path, text.encode())
