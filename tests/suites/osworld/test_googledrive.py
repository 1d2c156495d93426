"""OSWorld's `googledrive` step and `googledrive_file` getter against a local stand-in for Google's token
endpoint and Drive's v2 API on a real socket (tests/fake_google.py), with the account read from a settings
folder in OSWorld's layout: the tasks' own step parameters and getter specs, the reference's edge cases
(a level that matches nothing, a folder or Google document at the end: None), and the errors a wrong
account gives."""

from __future__ import annotations

import json

import pytest

from actors.backends.waa.client import WAAClient
from bench.formats.task_folder import read_task
from bench.suites.osworld import google_drive
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, SetupFailed
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.google_account import GoogleAccount, GoogleSettingsError
from bench.suites.osworld.google_drive import GoogleDrive
from bench.suites.osworld.needs import cache_name
from bench.suites.osworld.setup import run_steps
from bench.supervisor import main
from tests.fake_google import (
    CLIENT_ID,
    CLIENT_SECRET,
    PASSWORD,
    REFRESH_TOKEN,
    fake_google,
    osworld_settings,
)
from tests.osworld_reference import EXAMPLES
from tests.osworld_servers import osworld_vm
from tests.waa_servers import StandIn

pytestmark = pytest.mark.anyio

SECRETS = (CLIENT_SECRET, REFRESH_TOKEN, PASSWORD)


@pytest.fixture
def drive():
    with fake_google(REFRESH_TOKEN, CLIENT_ID, CLIENT_SECRET) as fake:
        yield fake


@pytest.fixture
async def episode(drive, tmp_path):
    account = GoogleAccount.load(osworld_settings(tmp_path, f"{drive.url}/token"))
    client = WAAClient("http://127.0.0.1:9")
    yield Episode(client, tmp_path / "cache", drive=GoogleDrive(account, api=drive.url))
    await client.aclose()


def task_config(stem: str) -> tuple[dict, dict]:
    """Task `multi_apps/<stem>`'s googledrive step parameters and its evaluator."""
    task = read_task(EXAMPLES / "multi_apps" / f"{stem}.json", "multi_apps")
    (step,) = [s for s in task.raw_config["config"] if s["type"] == "googledrive"]
    return step["parameters"], task.evaluation_spec


def titles(drive) -> list[list[str]]:
    return sorted(drive.path_of(file_id) for file_id in drive.files)


needs_tasks = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"no OSWorld tasks at {EXAMPLES}")


@needs_tasks
async def test_delete_then_upload_replaces_the_file_at_the_root(episode, drive):
    parameters, _ = task_config("4e9f0faf-2ecc-4ae8-a804-28c9a75d1ddc")
    drive.add("invoice.pdf", data=b"old")
    kept = drive.add("notes.txt", data=b"keep")
    url = parameters["args"][1]["url"]
    episode.cache.mkdir()
    (episode.cache / cache_name(url, "invoice.pdf")).write_bytes(b"%PDF new")
    assert await run_steps(episode, [{"type": "googledrive", "parameters": parameters}], phase="config") == []
    assert titles(drive) == [["invoice.pdf"], ["notes.txt"]] and kept in drive.files
    (new,) = [f for f in drive.files.values() if f["title"] == "invoice.pdf"]
    assert drive.content[new["id"]] == b"%PDF new" and new["mimeType"] == "application/pdf"


@needs_tasks
async def test_deleting_a_folder_takes_its_files_and_trash_only_trashes(episode, drive):
    parameters, _ = task_config("46407397-a7d5-4c6b-92c6-dbe038b1457b")  # figures at the root, a folder
    figures = drive.add("figures")
    drive.add("1.png", figures, b"png")
    other = drive.add("figures", drive.add("elsewhere"))
    await run_steps(episode, [{"type": "googledrive", "parameters": parameters}], phase="config")
    assert titles(drive) == [["elsewhere"], ["elsewhere", "figures"]] and other in drive.files
    drive.add("report.txt", data=b"x")
    trash = {"operation": ["delete"], "args": [{"query": "title = 'report.txt'", "trash": True}]}
    await run_steps(episode, [{"type": "googledrive", "parameters": trash}], phase="config")
    assert [f["labels"]["trashed"] for f in drive.files.values() if f["title"] == "report.txt"] == [True]


@needs_tasks
async def test_mkdirs_makes_a_folder_once_and_upload_makes_its_folders(episode, drive):
    parameters, _ = task_config("22a4636f-8179-4357-8e87-d1743ece1f81")  # delete, then mkdirs meetings
    drive.add("Meeting-Agenda.docx", data=b"d")
    for _ in range(2):
        await run_steps(episode, [{"type": "googledrive", "parameters": parameters}], phase="config")
    assert titles(drive) == [["meetings"]]
    url = "http://127.0.0.1:9/files/report.txt"
    episode.cache.mkdir()
    (episode.cache / cache_name(url, "report.txt")).write_bytes(b"text")
    upload = {"operation": ["upload", "mkdirs"], "args": [{"url": url, "path": ["meetings", "2024", "report.txt"]},
                                                          {"path": ["never"]}]}  # an upload ends the step
    await run_steps(episode, [{"type": "googledrive", "parameters": upload}], phase="config")
    assert titles(drive) == [["meetings"], ["meetings", "2024"], ["meetings", "2024", "report.txt"]]


@needs_tasks
async def test_the_getter_downloads_by_path_and_query_as_osworld_does(episode, drive):
    _, spec = task_config("22a4636f-8179-4357-8e87-d1743ece1f81")  # path: meetings/Meeting-Agenda.pdf
    assert await resolve(episode, spec["result"]) is None  # no meetings folder
    meetings = drive.add("meetings")
    assert await resolve(episode, spec["result"]) is None  # no file in it
    drive.add("Meeting-Agenda.pdf", data=b"at the root")
    drive.add("Meeting-Agenda.pdf", meetings, b"trashed", trashed=True)
    drive.add("Meeting-Agenda.pdf", meetings, b"%PDF agenda")
    assert await resolve(episode, spec["result"]) == b"%PDF agenda"
    _, spec = task_config("897e3b53-5d4d-444b-85cb-2cdc8a97d903")  # query: forms / (form.pdf or form.docx.pdf)
    forms = drive.add("forms")
    drive.add("form.docx.pdf", forms, b"%PDF form")
    assert await resolve(episode, spec["result"]) == b"%PDF form"
    _, spec = task_config("a0b9dc9c-fc07-4a88-8c5d-5e3ecad91bcb")  # path_list: two mails in emails/
    emails = drive.add("emails")
    first = spec["result"]["path_list"][0][1]
    drive.add(first, emails, b"From: aws")
    assert await resolve(episode, spec["result"]) == [b"From: aws", None]
    _, spec = task_config("0c825995-5b70-4526-b663-113f4c999dd2")  # a Google document has no download link
    drive.add("environment_policy_report (draft)", drive.add("environment_policy"),
              mime="application/vnd.google-apps.document")
    assert await resolve(episode, spec["result"]) is None
    assert await resolve(episode, {"type": "googledrive_file", "path": ["meetings"], "dest": "x"}) is None  # a folder
    _, spec = task_config("46407397-a7d5-4c6b-92c6-dbe038b1457b")  # query_list
    figures = drive.add("figures")
    drive.add("1.png", figures, b"one")
    assert await resolve(episode, spec["result"]) == [b"one", None, None]  # 1.png, 2.png, 3.png


async def test_an_expired_access_token_is_refreshed_and_the_request_repeated(episode, drive):
    drive.add("a.txt", data=b"a")
    spec = {"type": "googledrive_file", "path": ["a.txt"], "dest": "a.txt"}
    assert await resolve(episode, spec) == b"a"
    drive.tokens.clear()  # Drive forgets the token it issued
    assert await resolve(episode, spec) == b"a"
    assert drive.requests.count("POST /token") == 2


async def test_a_refused_refresh_token_is_one_clear_error_without_the_secrets(drive, tmp_path):
    account = GoogleAccount.load(osworld_settings(tmp_path, f"{drive.url}/token", refresh_token="revoked-Yy77"))
    client = WAAClient("http://127.0.0.1:9")
    episode = Episode(client, None, drive=GoogleDrive(account, api=drive.url))
    step = {"type": "googledrive", "parameters": {"operation": ["delete"], "args": [{"query": "title = 'a'"}]}}
    try:
        with pytest.raises(SetupFailed, match=r"token endpoint .*/token refused the refresh token of .*"
                                              r"credentials\.json: HTTP 400: invalid_grant") as setup:
            await run_steps(episode, [step], phase="config")
        with pytest.raises(GetterFailed, match="googledrive_file: Google's token endpoint") as getter:
            await resolve(episode, {"type": "googledrive_file", "path": ["a"], "dest": "a"})
    finally:
        await client.aclose()
    for message in (str(setup.value), str(getter.value), repr(account)):
        assert not any(secret in message for secret in (*SECRETS, "revoked-Yy77"))


async def test_without_an_account_the_step_and_getter_name_the_option():
    client = WAAClient("http://127.0.0.1:9")
    try:
        with pytest.raises(SetupFailed, match="no Google account given \\(--osworld-google"):
            await run_steps(Episode(client, None), [{"type": "googledrive", "parameters": {}}], phase="config")
        with pytest.raises(GetterFailed, match="no Google account given"):
            await resolve(Episode(client, None), {"type": "googledrive_file", "path": ["a"], "dest": "a"})
    finally:
        await client.aclose()


@pytest.mark.parametrize("damage, named", [
    (lambda folder: (folder / "googledrive" / "settings.yml").unlink(), r"googledrive/settings\.yml: no such file"),
    (lambda folder: (folder / "googledrive" / "settings.yml").write_text("client_config_backend: settings\n"),
     r"googledrive/settings\.yml: no field 'save_credentials_file'"),
    (lambda folder: (folder / "googledrive" / "credentials.json").write_text('{"client_id": "x"}'),
     r"googledrive/credentials\.json: no field 'client_secret'"),
    (lambda folder: (folder / "googledrive" / "credentials.json").write_text("{not json"),
     r"googledrive/credentials\.json: unreadable"),
    (lambda folder: (folder / "google" / "settings.json").write_text('{"email": "a@b"}'),
     r"google/settings\.json: no field 'password'"),
])
def test_a_missing_file_or_field_names_the_file_and_field(tmp_path, damage, named):
    folder = osworld_settings(tmp_path, "http://127.0.0.1:9/token")
    damage(folder)
    with pytest.raises(GoogleSettingsError, match=named):
        GoogleAccount.load(folder)


def test_the_drive_address_is_a_setting(tmp_path, monkeypatch):
    account = GoogleAccount.load(osworld_settings(tmp_path, "http://127.0.0.1:9/token"))
    assert GoogleDrive(account).api == "https://www.googleapis.com"
    monkeypatch.setattr(google_drive, "DRIVE_API", "http://127.0.0.1:1/")
    assert GoogleDrive(account).api == "http://127.0.0.1:1"



def test_a_run_writes_none_of_the_secrets(drive, tmp_path, monkeypatch, capfd, caplog):
    """A whole run through the supervisor (a task of the test's own with the googledrive step and getter,
    against a stand-in for OSWorld's server): the step and getter reach Drive, and no file of the run
    folder, and nothing printed or logged, holds the client secret, refresh token, password or an
    access token Drive issued."""
    monkeypatch.setattr(google_drive, "DRIVE_API", drive.url)
    settings = osworld_settings(tmp_path / "osworld", f"{drive.url}/token")
    tasks = tmp_path / "osworld" / "evaluation_examples"
    (tasks / "examples" / "multi_apps").mkdir(parents=True)
    (tasks / "test_all.json").write_text(json.dumps({"multi_apps": ["drive-task"]}))
    url = "http://127.0.0.1:9/files/notes.txt"
    step = {"type": "googledrive", "parameters": {"operation": ["upload"], "args": [{"url": url, "path": ["notes.txt"]}]}}
    (tasks / "examples" / "multi_apps" / "drive-task.json").write_text(json.dumps({
        "id": "drive-task", "instruction": "Keep notes.txt in Drive.", "config": [step], "related_apps": [],
        "evaluator": {"func": "exact_match", "result": {"type": "googledrive_file", "path": ["notes.txt"],
                                                         "dest": "notes.txt"},
                      "expected": {"type": "rule", "rules": {"expected": "notes"}}}}))
    cache = tmp_path / "cache"
    (cache / "drive-task").mkdir(parents=True)
    (cache / "drive-task" / cache_name(url, "notes.txt")).write_bytes(b"notes")
    out = tmp_path / "run"
    with StandIn(osworld_vm()) as vm:
        assert main(["--suite", "osworld", "--osworld-tasks", str(tasks), "--osworld-cache", str(cache),
                     "--osworld-url", vm.url, "--osworld-google", str(settings), "--max-attempts", "1",
                     "--max-steps", "1", "--out", str(out)]) == 0
    assert [drive.path_of(f) for f in drive.files] == [["notes.txt"]]
    assert "GET /drive/v2/files/f0" in drive.requests  # the getter downloaded it
    (line,) = (out / "results.jsonl").read_text().splitlines()
    assert json.loads(line)["result"]["score"] == 0.0  # the bytes are not the rule's string; no error
    secrets = [*SECRETS, *drive.tokens]
    written = [path for path in out.rglob("*") if path.is_file()]
    assert written and drive.tokens
    for path in written:
        data = path.read_bytes()
        assert not [secret for secret in secrets if secret.encode() in data], path
    said = "".join(capfd.readouterr()) + caplog.text
    assert not [secret for secret in secrets if secret in said]


async def test_an_unreachable_google_is_one_clear_error(tmp_path):
    account = GoogleAccount.load(osworld_settings(tmp_path, "http://127.0.0.1:9/token"))
    client = WAAClient("http://127.0.0.1:9")
    try:
        with pytest.raises(GetterFailed, match=r"googledrive_file: Google Drive list .*: ConnectError"):
            await resolve(Episode(client, None, drive=GoogleDrive(account, api="http://127.0.0.1:9")),
                          {"type": "googledrive_file", "path": ["a"], "dest": "a"})
    finally:
        await client.aclose()
