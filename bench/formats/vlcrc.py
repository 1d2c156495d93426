"""VLC's vlcrc as WAA's and OSWorld's VLC checks read it: the same reading in both references.

`UNCHANGED`: a vlcrc as VLC 3 saves it with every option at its default:
its header, each option commented out (these checks read a commented
`#option=default` line as the default they assume when no line names it,
so the header alone reads the same);
`recordings_folder`: the first uncommented line mentioning
`input-record-path`, its text after the last `=`, compared exactly;
`blackish`: every channel of a `;`-separated colour list below `BLACKISH`
(a list that is not numbers scores 0);
`play_pause_hotkey`: "1" when the last line containing
`global-key-play-pause=` (commented or not) has a value after its last `=`,
else "0": what `check_global_key_play_pause` compares with its rule.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["BLACKISH", "UNCHANGED", "blackish", "play_pause_hotkey", "recordings_folder"]

BLACKISH = 100
UNCHANGED = """\
###
###  vlc 3.0
###

###
### lines beginning with a '#' character are comments
###

"""


def recordings_folder(lines: Iterable[str], want: str) -> float:
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        if "input-record-path" in line:
            return float(line.split("=")[-1].strip() == want)
    return 0.0


def blackish(colours: str) -> float:
    try:
        values = [int(part) for part in colours.split(";")]
    except ValueError:
        return 0.0
    triples = zip(values[0::3], values[1::3], values[2::3])
    return float(all(channel < BLACKISH for triple in triples for channel in triple))


def play_pause_hotkey(lines: Iterable[str]) -> str:
    assigned = "0"
    for line in lines:
        if "global-key-play-pause=" in line:
            assigned = "0" if line.split("=")[-1].strip() == "" else "1"
    return assigned
