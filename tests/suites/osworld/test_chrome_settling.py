"""When the evaluation waits for Chrome's profile files, and when they hold what Chrome holds: the tasks
whose getters read Preferences or Bookmarks with Chrome running (and not those whose postconfig closes it
first), prefs as chrome://prefs-internals shows them against the file, bookmarks as
chrome.bookmarks.getTree gives them against the Bookmarks file, and nothing waited for when no browser
answers DevTools. That a real Chromium is waited for is proven in test_local_chrome.py."""

from __future__ import annotations

import json
import socket

import pytest

from actors.backends.waa.client import WAAClient
from bench.suites.osworld.catalog import Catalog
from bench.suites.osworld.chrome_settling import bookmarks_unwritten, profile_reads, settle_chrome, unwritten_prefs
from bench.suites.osworld.episode import Episode

from tests.paths import ROOT

OSWORLD = ROOT.parent / "shared" / "osworld" / "evaluation_examples"
READ_WITH_CHROME_RUNNING = {"chrome/3299584d-8f11-4457-bf4c-ce98f7600250": {"Preferences": {"session"}},
                            "chrome/6766f2b8-8a72-417f-a9e5-56fcaa735837": {"Preferences": {"extensions.settings"}},
                            "multi_apps/873cafdd-a581-47f6-8b33-b9696ddb7b05": {"Preferences": {"extensions.settings"}},
                            "multi_apps/a74b607e-6bb5-4ea8-8a7c-5d97c7bbcd2a": {"Preferences": {"extensions.settings"}},
                            "multi_apps/a82b78bb-7fde-4cb3-94a4-035baf10bcf0": {"Bookmarks": set()}}


@pytest.mark.skipif(not OSWORLD.is_dir(), reason="no shared OSWorld data")
def test_only_the_tasks_reading_a_running_chromes_files_wait_for_them():
    reads = {task.task_id: found for task in Catalog.load(OSWORLD).tasks
             if (found := profile_reads(task.evaluation_spec))}
    assert reads == READ_WITH_CHROME_RUNNING


def pref(value, *metadata):
    return {"metadata": list(metadata), "value": value}


HELD = {"session": {"restore_on_startup": pref(5, "user_controlled", "user_modifiable"),
                    "startup_urls": pref([], "default", "user_modifiable")},
        "homepage": pref("https://example.org/", "extension_controlled")}


@pytest.mark.parametrize(("file", "unwritten"), [
    ({"session": {"restore_on_startup": 5}}, []),
    ({"session": {"restore_on_startup": 4, "startup_urls": ["http://funbrain.com/"]}},
     ["session.restore_on_startup", "session.startup_urls"]),
    ({}, ["session.restore_on_startup"]),
    ({"session": {"restore_on_startup": 5}, "homepage": "https://other.example/"}, []),
])
def test_a_pref_is_written_when_the_file_has_the_users_value_and_no_default_one(file, unwritten):
    assert unwritten_prefs(HELD, json.dumps(file).encode(), {"session", "homepage"}) == unwritten


def test_a_preferences_file_that_is_not_json_holds_none_of_the_users_prefs():
    assert unwritten_prefs(HELD, b"{not json", {"session"}) == ["session.restore_on_startup"]
    assert unwritten_prefs(HELD, None, {"absent.pref"}) == []


TREE = [{"id": "0", "title": "", "children": [
    {"id": "1", "parentId": "0", "title": "Bookmarks bar", "children": [
        {"id": "5", "parentId": "1", "title": "Liked Authors", "children": [
            {"id": "6", "parentId": "5", "title": "Jim Fan", "url": "https://jimfan.me/"}]}]},
    {"id": "2", "parentId": "0", "title": "Other bookmarks", "children": []}]}]


def bookmarks_file(*children) -> bytes:
    return json.dumps({"roots": {"bookmark_bar": {"id": "1", "name": "Bookmarks bar", "type": "folder",
                                                  "children": list(children)},
                                 "other": {"id": "2", "name": "Other bookmarks", "type": "folder", "children": []},
                                 "synced": {"id": "3", "name": "Mobile bookmarks", "type": "folder", "children": []}},
                       "version": 1}).encode()


FOLDER = {"id": "5", "name": "Liked Authors", "type": "folder",
          "children": [{"id": "6", "name": "Jim Fan", "type": "url", "url": "https://jimfan.me/"}]}


def test_bookmarks_are_written_when_the_file_has_every_one_chrome_holds_where_it_holds_it():
    assert not bookmarks_unwritten(TREE, bookmarks_file(FOLDER))
    assert bookmarks_unwritten(TREE, bookmarks_file())
    assert bookmarks_unwritten(TREE, bookmarks_file({**FOLDER, "name": "Authors"}))
    assert bookmarks_unwritten(TREE, None)
    assert bookmarks_unwritten(TREE, b"not json")
    assert not bookmarks_unwritten([{"id": "0", "children": [{"id": "1", "parentId": "0", "children": []}]}], None)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.anyio
async def test_nothing_is_waited_for_when_no_browser_answers_devtools():
    client = WAAClient("http://127.0.0.1:1", devtools=f"http://127.0.0.1:{closed_port()}")
    try:
        spec = {"func": "is_expected_bookmarks", "result": {"type": "bookmarks"}}
        assert await settle_chrome(Episode(client, None), spec) == ""
    finally:
        await client.aclose()
