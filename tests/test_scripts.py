"""scripts/setup.sh refuses an option it does not know before it installs anything."""

import subprocess

from tests.paths import ROOT


def test_setup_names_an_unknown_option_in_one_line_and_exits_2():
    run = subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh"), "--osworld-app"],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert run.stderr.splitlines() == ["setup: unknown option --osworld-app (known: --osworld-apps)"]
    assert run.stdout == ""
