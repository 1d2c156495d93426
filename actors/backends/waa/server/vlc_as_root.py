"""`vlc` for a desktop whose user is root: Debian's /usr/bin/vlc refuses to run as root ("VLC is not
supposed to be run as root"), and troupe's desktops often run in root containers.

`VLC` is a script that starts VLC the way that binary's main() does (VLC 3's
bin/vlc.c) with the root check left out: libvlc in this process with the
same arguments (after `--no-ignore-config --media-library --stats`), the
hotkeys interfaces, the default interface (Qt) and the extra ones the
vlcrc names (its web interface), the command line's files played; it
waits for SIGINT, SIGTERM, SIGHUP or SIGQUIT, or for the interface's quit,
then releases libvlc. Its process name is `vlc`, so `pkill vlc` finds it.
Run by another user it is the real binary.

Either way VLC starts without the session's D-Bus
(DBUS_SESSION_BUS_ADDRESS=disabled:): with it, VLC 3's Qt interface on
Debian 12 crashes (SIGSEGV in QVariant::toString, in a D-Bus callback of
Qt's AT-SPI bridge) within a second or two of the desktop's accessibility
tree being read, as the server reads it for every observation. Without
the bus, Qt's bridge never starts; VLC loses its MPRIS remote control and
screensaver inhibition, which no task reads, and shows nothing in the tree
(it showed nothing there with the bus either).
"""

from __future__ import annotations

REAL_VLC = "/usr/bin/vlc"

VLC = '''#!{python}
"""VLC as /usr/bin/vlc starts it, run as root (which that binary refuses): actors/backends/waa/server/vlc_as_root.py."""
import ctypes, os, signal, sys

os.environ["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"  # Qt's AT-SPI bridge crashes VLC once the tree is read
if os.geteuid() != 0:
    os.execv({real!r}, [{real!r}, *sys.argv[1:]])
ctypes.CDLL(None).prctl(15, b"vlc", 0, 0, 0)  # PR_SET_NAME: the process is called vlc
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
stops = {{signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}}
signal.pthread_sigmask(signal.SIG_BLOCK, stops | {{signal.SIGCHLD}})  # libvlc's threads inherit the mask
libvlc = ctypes.CDLL("libvlc.so.5")
libvlc.libvlc_new.restype = ctypes.c_void_p
libvlc.libvlc_new.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
libvlc.libvlc_get_version.restype = ctypes.c_char_p
for name in ("libvlc_set_app_id", "libvlc_set_user_agent", "libvlc_add_intf", "libvlc_playlist_play",
             "libvlc_release", "libvlc_set_exit_handler"):
    getattr(libvlc, name).argtypes = None
args = [b"--no-ignore-config", b"--media-library", b"--stats", *map(os.fsencode, sys.argv[1:])]
vlc = libvlc.libvlc_new(len(args), (ctypes.c_char_p * len(args))(*args))
if not vlc:
    sys.exit(1)
vlc = ctypes.c_void_p(vlc)
on_exit = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda data: os.kill(os.getpid(), signal.SIGTERM))
libvlc.libvlc_set_exit_handler(vlc, on_exit, None)
version = libvlc.libvlc_get_version().split()[0]
libvlc.libvlc_set_app_id(vlc, b"org.VideoLAN.VLC", version, b"VLC media player")
libvlc.libvlc_set_user_agent(vlc, b"VLC media player", b"VLC/" + version)
libvlc.libvlc_add_intf(vlc, b"hotkeys,none")
libvlc.libvlc_add_intf(vlc, b"globalhotkeys,none")
if libvlc.libvlc_add_intf(vlc, None) != 0:
    libvlc.libvlc_release(vlc)
    sys.exit(1)
libvlc.libvlc_playlist_play(vlc, -1, 0, None)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {{signal.SIGCHLD}})
signal.sigwait(stops)
libvlc.libvlc_release(vlc)
'''
"""The script, to format with `python` (its interpreter) and `real` (REAL_VLC)."""


def script(python: str) -> str:
    return VLC.format(python=python, real=REAL_VLC)
