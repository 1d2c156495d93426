"""`troupe`, the console command (bench/cli.py): each subcommand is its python -m module under its own name."""

import pytest

import bench
from bench import cli, supervisor


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_each_subcommand_helps_under_its_own_name(command, capsys):
    with pytest.raises(SystemExit) as exited:  # argparse's --help; bench.compare returns instead
        raise SystemExit(cli.main([command, "--help"]))
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: troupe {command} ")


def test_list_is_the_suites_listing(capsys):
    assert cli.main(["list", "--suite", "sim"]) == 0
    listing = capsys.readouterr().out
    assert "agents: " in listing and "suites: " in listing


def test_version_on_troupe_and_on_the_supervisor(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"troupe-bench {bench.__version__}\n"
    with pytest.raises(SystemExit) as exited:
        supervisor.main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == f"troupe-bench {bench.__version__}\n"


def test_no_command_or_an_unknown_one_is_exit_2(capsys):
    assert cli.main([]) == 2
    assert capsys.readouterr().err.startswith("usage: troupe {run,list,view,compare,report,chaos}")
    assert cli.main(["walk"]) == 2
    assert capsys.readouterr().err == ("error: troupe 'walk': no such command (choose from run, list, view, compare, report, "
                                       "chaos)\n")
    assert cli.main(["--help"]) == 0 and "compare  compare run folders" in capsys.readouterr().out
