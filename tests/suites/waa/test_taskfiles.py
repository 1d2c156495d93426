"""Absurd WAA task folders: each bad file is listed as unreadable, the others still load."""

import json

import pytest

from bench.suites.waa.catalog import Catalog
from actors.errors import ConfigError

GOOD = {"instruction": "Open Notepad.", "evaluator": {"func": "infeasible"}}


def folder(tmp_path, files: dict[str, object]):
    (tmp_path / "examples" / "d").mkdir(parents=True)
    (tmp_path / "test_all.json").write_text(json.dumps({"d": ["good", *files]}))
    (tmp_path / "examples" / "d" / "good.json").write_text(json.dumps(GOOD))
    for stem, content in files.items():
        path = tmp_path / "examples" / "d" / f"{stem}.json"
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return tmp_path


def test_deep_nesting_huge_integers_and_a_folder_named_like_a_task_are_each_unreadable(tmp_path):
    catalog = Catalog.load(folder(tmp_path, {
        "deep": "[" * 100_000 + "]" * 100_000,
        "digits": '{"instruction": "x", "evaluator": {"func": "f"}, "n": ' + "9" * 5000 + "}",
        "folder": None,
        "latin1": b'{"instruction": "caf\xe9", "evaluator": {"func": "f"}}',
    }))
    assert [t.task_id for t in catalog.tasks] == ["d/good"]
    problems = {path.name: str(p).split(": ", 1)[1] for path, p in catalog.problems.items()}
    assert problems["deep.json"] == "not valid JSON: nested too deeply to read"
    assert problems["digits.json"].startswith("not valid JSON: Exceeds the limit")
    assert problems["folder.json"].startswith("cannot be read: Is a directory")
    assert problems["latin1.json"].startswith("not valid JSON: 'utf-8' codec can't decode")


def test_a_broken_task_list_is_one_error_naming_the_file(tmp_path):
    (tmp_path / "test_all.json").write_text("[" * 100_000)
    with pytest.raises(ConfigError, match=r"test_all.json: not valid JSON: nested too deeply"):
        Catalog.load(tmp_path)
    (tmp_path / "test_all.json").unlink()
    (tmp_path / "test_all.json").mkdir()
    with pytest.raises(ConfigError, match=r"test_all.json: cannot be read"):
        Catalog.load(tmp_path)
