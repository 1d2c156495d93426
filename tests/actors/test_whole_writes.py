"""Appends complete or fail: a write the kernel cuts short (a file-size limit here, a full disk in
production) leaves the file as it was, and the failure names the file."""

import subprocess
import sys

from tests.paths import ROOT

CHILD = """
import resource, sys
from pathlib import Path
from actors.whole_writes import FolderFull, append_whole, write_whole
path = Path(sys.argv[1])
size = path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 10, size + 10))  # Python ignores SIGXFSZ: writes fail EFBIG
try:
    append_whole(path, b"x" * 100 + b"\\n", True)
except FolderFull as exc:
    print("full:", exc.path)
try:
    write_whole(path.with_name("big.png"), b"p" * 4096)
except FolderFull as exc:
    print("full:", exc.path)
"""


def test_an_append_cut_short_by_the_kernel_is_undone_and_named(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"whole": 1}\n')
    child = subprocess.run([sys.executable, "-c", CHILD, str(path)], cwd=ROOT, capture_output=True, text=True,
                           timeout=60)
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == [f"full: {path}", f"full: {tmp_path / 'big.png'}"]
    assert path.read_bytes() == b'{"whole": 1}\n'
    assert not (tmp_path / "big.png").exists()
