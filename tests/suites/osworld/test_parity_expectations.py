"""troupe's check_list, check_csv and check_json agree with OSWorld's own (metrics/general.py with its
utils.py, imported from ../shared/osworld/reference for tests only) on files built to sit on their edges:
the Thunderbird tasks' own `ls -R` listings, diff outputs, firefox_decrypt CSVs and xulstore.json files,
solved and not; lines ending in CRLF or CR or nothing, regexes anchored at line ends or that do not
compile, text that is not UTF-8; CSV rows short of or past the header, quoted commas, a BOM; JSON paths
through lists and past their end, values of another kind, rules without `ref` or `key`, YAML files with
`is_yaml`; no file, empty files, rules that are not a dict. Prints the agreement per function."""

from __future__ import annotations

import json

import pytest

from bench.suites.osworld import metrics

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, general

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case

LOCAL = "/home/user/.thunderbird/t5q2a5hp.default-release/Mail/Local Folders"
FOLDERS = {"expect": ["\\bCOMPANY\\.msf\\b", "\\bCOMPANY/?(?!\\.msf)", "\\bUNIVERSITY\\.msf\\b",
                      "\\bUNIVERSITY/?(?!\\.msf)"]}
"""thunderbird/a10b69e1's rules on `ls -R` of the profile's local folders."""


def listing(*names: str) -> bytes:
    return f"{LOCAL}:\n{chr(10).join(names)}\n".encode()


BACKUP = {"expect": ["\u6b61\u8fce\u4f7f\u7528\u65b0\u7684 Outlook.com \u5e33\u6236.*\\.eml", "A Test E-mail.*\\.eml"]}
"""thunderbird/9bc3cc16's rules on `ls -R ~/emails.bak`."""
WELCOME = "\u6b61\u8fce\u4f7f\u7528\u65b0\u7684 Outlook.com \u5e33\u6236"
NO_DIFF = {"unexpect": [".+"]}
"""multi_apps/415ef462's rule on diff's output."""
ATTACHED = {"expect": ["Attachment added!"]}
"""thunderbird/d38192b0's rule on its attachment script's output."""

CHECK_LIST = [
    C(FILE, listing("COMPANY", "COMPANY.msf", "Trash", "Trash.msf", "UNIVERSITY", "UNIVERSITY.msf"), FOLDERS),
    C(FILE, listing("COMPANY", "COMPANY.msf", "Trash", "Trash.msf"), FOLDERS),
    C(FILE, listing("COMPANY.msf", "UNIVERSITY.msf"), FOLDERS),
    C(FILE, listing("COMPANY", "UNIVERSITY"), FOLDERS),
    C(FILE, listing("COMPANY.sbd", "COMPANY.msf", "UNIVERSITY.sbd", "UNIVERSITY.msf"), FOLDERS),
    C(FILE, listing("MYCOMPANY", "MYCOMPANY.msf", "UNIVERSITY", "UNIVERSITY.msf"), FOLDERS),
    C(FILE, listing("COMPANY", "COMPANY.msf", "UNIVERSITY", "UNIVERSITY.msf").replace(b"\n", b"\r\n"), FOLDERS),
    C(FILE, listing("COMPANY", "COMPANY.msf", "UNIVERSITY", "UNIVERSITY.msf").replace(b"\n", b"\r"), FOLDERS),
    C(FILE, f"/home/user/emails.bak:\n{WELCOME}.eml\nA Test E-mail.eml\n".encode(), BACKUP),
    C(FILE, f"/home/user/emails.bak:\n{WELCOME} - 2024.eml\nA Test E-mail - 2024.eml".encode(), BACKUP),
    C(FILE, b"/home/user/emails.bak:\nA Test E-mail.eml\n", BACKUP),
    C(FILE, f"/home/user/emails.bak:\n{WELCOME}.mbox\nA Test E-mail.eml\n".encode(), BACKUP),
    C(FILE, b"", NO_DIFF), C(FILE, b"\n\n", NO_DIFF),
    C(FILE, b"Binary files .aws-invoice-2312.pdf and /home/user/Documents/Finance/receipts/aws-invoice-2312.pdf differ\n",
      NO_DIFF),
    C(FILE, b"Attachment added!\n", ATTACHED), C(FILE, b"Attachment not found\n", ATTACHED),
    C(FILE, b"a\nb\n", {"expect": ["^a$", "^b$"]}), C(FILE, b"a\r\nb", {"expect": ["^b$", "a\\n"]}),
    C(FILE, b"a\x0cb\n", {"expect": ["^b$"]}), C(FILE, b"a\nb\n", {"expect": ["a\\nb"]}),
    C(FILE, b"a\n", {"expect": ["a"], "unexpect": ["b"]}), C(FILE, b"a\n", {}), C(FILE, b"", {"expect": []}),
    C(FILE, b"", {"expect": ["x"]}), C(FILE, b"", {"expect": ["("]}), C(FILE, b"a\n", {"unexpect": ["[a"]}),
    C(FILE, b"\xff\xfe a\n", {"expect": ["a"]}), C(FILE, b"a\n", ["a"]), C(FILE, b"a\n", {"expect": "a"}),
    C(None, FOLDERS), C(None, {}),
]

ACCOUNTS = {"unexpect": [{"url": "imap://outlook.office365.com", "user": "anonym-x2024@outlook.com"}]}
"""thunderbird/dfac9ee8's rule on firefox_decrypt's CSV of the profile's saved logins."""
HEADER = b"url,user,password\n"
OUTLOOK = b"imap://outlook.office365.com,anonym-x2024@outlook.com,password\n"
SMTP = b"smtp://smtp.office365.com,anonym-x2024@outlook.com,password\n"
WANTED = {"expect": [{"url": "smtp://smtp.office365.com"}, {"user": "anonym-x2024@outlook.com"}]}

CHECK_CSV = [
    C(FILE, HEADER + OUTLOOK + SMTP, ACCOUNTS), C(FILE, HEADER + SMTP, ACCOUNTS), C(FILE, HEADER, ACCOUNTS),
    C(FILE, b"", ACCOUNTS), C(FILE, (HEADER + OUTLOOK).replace(b"\n", b"\r\n"), ACCOUNTS),
    C(FILE, b"\xef\xbb\xbf" + HEADER + OUTLOOK, ACCOUNTS), C(FILE, b"user,url\n" + OUTLOOK, ACCOUNTS),
    C(FILE, HEADER + b'"imap://outlook.office365.com","anonym-x2024@outlook.com","pass, word"\n', ACCOUNTS),
    C(FILE, HEADER + b"imap://outlook.office365.com\n", ACCOUNTS),
    C(FILE, HEADER + b"imap://outlook.office365.com,anonym-x2024@outlook.com,password,extra\n", ACCOUNTS),
    C(FILE, HEADER + b"imap://outlook.office365.com, anonym-x2024@outlook.com,password\n", ACCOUNTS),
    C(FILE, HEADER + b"\n" + OUTLOOK, ACCOUNTS), C(FILE, HEADER + OUTLOOK + SMTP, WANTED),
    C(FILE, HEADER + OUTLOOK, WANTED), C(FILE, HEADER + SMTP, {"expect": [{}]}), C(FILE, HEADER, {"expect": [{}]}),
    C(FILE, HEADER + SMTP, {"expect": [{"password": None}]}), C(FILE, HEADER + b"x\n", {"expect": [{"user": None}]}),
    C(FILE, HEADER + SMTP, {}), C(FILE, HEADER + SMTP, {"expect": ["url"]}), C(FILE, HEADER, {"expect": ["url"]}),
    C(FILE, b"\xff" + HEADER + SMTP, ACCOUNTS), C(FILE, HEADER + SMTP, ["url"]), C(None, ACCOUNTS),
]

XUL = "chrome://messenger/content/messenger.xhtml"
UNIFIED = {"expect": [{"key": [XUL, "folderTree", "mode"], "method": "re", "ref": "\\bsmart\\b"}]}
"""thunderbird/3f49d2cc's rule on the profile's xulstore.json."""


def xulstore(mode: object) -> bytes:
    return json.dumps({XUL: {"folderTree": {"mode": mode}, "threadPane": {"width": "400"}}}).encode()


def rule(*key: object, **test: object) -> dict:
    return {"key": list(key), **test}


CHECK_JSON = [
    C(FILE, xulstore("smart"), UNIFIED), C(FILE, xulstore("all,smart"), UNIFIED), C(FILE, xulstore("all"), UNIFIED),
    C(FILE, xulstore("smartest"), UNIFIED), C(FILE, xulstore(None), UNIFIED), C(FILE, xulstore(["smart"]), UNIFIED),
    C(FILE, b'{"' + XUL.encode() + b'": {"threadPane": {}}}', UNIFIED), C(FILE, b"[]", UNIFIED),
    C(FILE, b"", UNIFIED), C(FILE, b"not json", UNIFIED), C(FILE, b"\xff\xfe{}", UNIFIED), C(None, UNIFIED),
    C(FILE, xulstore("smart").replace(b" ", b"\r\n"), UNIFIED),
    C(FILE, b'{"a": [1, 2, 3]}', {"expect": [rule("a", 1, method="eq", ref=2)]}),
    C(FILE, b'{"a": [1, 2, 3]}', {"expect": [rule("a", 5, method="eq", ref=2)]}),
    C(FILE, b'{"a": [1, 2, 3]}', {"expect": [rule("a", "0", method="eq", ref=1)]}),
    C(FILE, b'{"a": 1.5}', {"expect": [rule("a", method="approx:0.5", ref=1)]}),
    C(FILE, b'{"a": "x"}', {"expect": [rule("a", method="approx:0.5", ref=1)]}),
    C(FILE, b'{"a": 3}', {"expect": [rule("a", method="range.te", ref=[2, 3])]}),
    C(FILE, b'{"a": "1,2"}', {"expect": [rule("a", method="str_set_eq", ref=["2", "1"])]}),
    C(FILE, b'{"a": null}', {"expect": [rule("a", method="eq")]}),
    C(FILE, b'{"a": 1}', {"expect": [rule("a", method="nonsense", ref=1)]}),
    C(FILE, b'{"a": 1}', {"expect": [{"method": "eq", "ref": 1}]}), C(FILE, b'{"a": 1}', {"expect": [rule()]}),
    C(FILE, b'{"a": 1}', {"expect": [rule(method="eq", ref={"a": 1})]}),
    C(FILE, b'{"a": 1}', {"expect": {"key": ["a"]}}), C(FILE, b'{"a": 1}', {}), C(FILE, b'{"a": 1}', ["a"]),
    C(FILE, b'{"a": 1}', {"expect": 1}),
    C(FILE, b'{"a": 1}', {"expect": [rule("a", method="eq", ref=1)], "unexpect": [rule("b", method="eq", ref=1)]}),
    C(FILE, b'{"a": 1}', {"unexpect": [rule("a", method="eq", ref=1)]}),
    C(FILE, b'{"a": 1}', {"unexpect": [rule("b", method="re", ref="x")]}),
    C(FILE, b'{"a": 1}', {"unexpect": [rule("b", method="eq", ref=None)]}),
    C(FILE, b'{"a": 1}', {"unexpect": [rule("a", "b", method="eq", ref=None)]}),
    C(FILE, b'{"a": [1]}', {"unexpect": [rule("a", 3, method="eq", ref=None)]}),
    C(FILE, b'{"a": 1}', {"unexpect": [rule("a", method="eq")]}),
    C(FILE, b'{"a": 1}', {"expect": [rule("a", method="eq", ref=2)], "unexpect": [rule("a", method="re", ref=1)]}),
    C(FILE, b'{"a": NaN}', {"expect": [rule("a", method="ne", ref=0)]}),
    C(FILE, b"a:\n  b: on\n", {"expect": [rule("a", "b", method="eq", ref=True)]}, is_yaml=True),
    C(FILE, b"a:\n  b: [1, 2]\n", {"expect": [rule("a", "b", 1, method="eq", ref=2)]}, is_yaml=True),
    C(FILE, b"", {"expect": []}, is_yaml=True), C(FILE, b"# only a comment\n", {}, is_yaml=True),
    C(FILE, b"a: [1\n", {}, is_yaml=True), C(FILE, b"- 1\n- 2\n", {"expect": [rule(0, method="eq", ref=1)]},
                                            is_yaml=True),
    C(FILE, b'{"a": 1}', {"expect": [rule("a", method="eq", ref=1)]}, is_yaml=True),
    C(FILE, b"a: 1\n", {"expect": [rule("a", method="eq", ref=1)]}),
]

CASES = {"check_list": CHECK_LIST, "check_csv": CHECK_CSV, "check_json": CHECK_JSON}


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    assert_agrees(name, getattr(general(), name), metrics.METRICS[name], CASES[name], tmp_path, capsys)



def test_the_tasks_solved_files_score_1_and_their_unsolved_ones_0():
    """The built cases reach both scores (parity on cases that all scored 0 would prove little)."""
    check_list, check_csv, check_json = (metrics.METRICS[name] for name in ("check_list", "check_csv", "check_json"))
    assert check_list(listing("COMPANY", "COMPANY.msf", "UNIVERSITY", "UNIVERSITY.msf"), FOLDERS) == 1.0
    assert check_list(listing("COMPANY", "COMPANY.msf"), FOLDERS) == 0.0
    assert check_csv(HEADER + SMTP, ACCOUNTS) == 1.0
    assert check_csv(HEADER + OUTLOOK, ACCOUNTS) == 0.0
    assert check_json(xulstore("smart"), UNIFIED) == 1.0
    assert check_json(xulstore("all"), UNIFIED) == 0.0
