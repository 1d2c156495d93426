"""Cases for the text, JSON and command-output metrics (notepad, VS Code, file explorer, settings
tasks): exact_match, compare_text_file, check_json_settings, check_json_keybindings,
is_extension_installed, and compare_zip_files over archives."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from tests.suites.waa.corpus import Case, File

BOM = b"\xef\xbb\xbf"


def _rule(value: Any) -> dict[str, Any]:
    return {"expected": value}


def _exact_match() -> list[Case]:
    pairs = [("true", "true"), ("True", "true"), (True, True), (True, "true"), (1.0, 1.0), (1, 1.0), (True, 1.0),
             (None, "true"), ("C:\\", "C:\\"), ([True, "07:00 PM", "07:00 AM"], [True, "07:00 PM", "07:00 AM"]),
             ((True, "07:00 PM", "07:00 AM"), [True, "07:00 PM", "07:00 AM"]), ("7", "7"), ("7", 7),
             (["a", "b"], ["b", "a"]), ("Documents ", "Documents")]
    return [Case("exact_match", f"exact_match-{n}", result, _rule(wanted)) for n, (result, wanted) in enumerate(pairs)]


def _text(name: str, mine: bytes | None, gold: bytes | None, **options: Any) -> Case:
    return Case("compare_text_file", name, None if mine is None else File(f"{name}/result.txt", mine),
                None if gold is None else File(f"{name}/gold.txt", gold), options)


def _compare_text_file() -> list[Case]:
    gold = b"first line\nsecond line\n"
    return [
        _text("same", gold, gold),
        _text("crlf-vs-lf", b"first line\r\nsecond line\r\n", gold),
        _text("lone-cr", b"first line\rsecond line\r", gold),
        _text("bom", BOM + gold, gold),
        _text("bom-both", BOM + gold, BOM + gold),
        _text("no-final-newline", gold.rstrip(b"\n"), gold),
        _text("trailing-spaces", b"first line  \nsecond line\n", gold),
        _text("blanks-ignored", b"first   line\n\n\tsecond line  ", gold, ignore_blanks=True),
        _text("case-ignored", gold.upper(), gold, ignore_case=True),
        _text("case-differs", gold.upper(), gold),
        _text("latin-1", "café\n".encode("latin-1"), "café\n".encode()),
        _text("utf-16", "hi\n".encode("utf-16"), b"hi\n"),
        _text("empty", b"", gold),
        _text("both-empty", b"", b""),
        _text("missing", None, gold),
        _text("gold-missing", gold, None),
        _text("nbsp-ignore-blanks", "a\u00a0b".encode(), b"a b", ignore_blanks=True),
    ]


def _settings(name: str, data: bytes | None, wanted: dict[str, Any]) -> Case:
    return Case("check_json_settings", f"settings-{name}",
                None if data is None else File(f"settings-{name}/settings.json", data), _rule(wanted))


def _check_json_settings() -> list[Case]:
    want = {"editor.wordWrapColumn": 100}
    return [
        _settings("set", b'{"editor.wordWrapColumn": 100}', want),
        _settings("set-with-others", b'{\n  "files.autoSave": "off",\n  "editor.wordWrapColumn": 100\n}', want),
        _settings("other-value", b'{"editor.wordWrapColumn": 80}', want),
        _settings("float-value", b'{"editor.wordWrapColumn": 100.0}', want),
        _settings("string-value", b'{"editor.wordWrapColumn": "100"}', want),
        _settings("true-for-1", b'{"a": true}', {"a": 1}),
        _settings("nested", b'{"a": {"b": 1, "c": 2}}', {"a": {"b": 1}}),
        _settings("absent", b"{}", want),
        _settings("comment", b'{\n  // wrap\n  "editor.wordWrapColumn": 100\n}', want),
        _settings("trailing-comma", b'{"editor.wordWrapColumn": 100,}', want),
        _settings("bom", BOM + b'{"editor.wordWrapColumn": 100}', want),
        _settings("crlf", b'{\r\n  "editor.wordWrapColumn": 100\r\n}\r\n', want),
        _settings("empty-file", b"", want),
        _settings("list", b"[]", want),
        _settings("null", b"null", want),
        _settings("latin-1", '{"x": "café", "editor.wordWrapColumn": 100}'.encode("latin-1"), want),
        _settings("missing", None, want),
        _settings("empty-rule", b'{"a": 1}', {}),
    ]


def _keys(name: str, data: bytes | None, wanted: dict[str, Any]) -> Case:
    return Case("check_json_keybindings", f"keys-{name}",
                None if data is None else File(f"keys-{name}/keybindings.json", data), _rule(wanted))


def _check_json_keybindings() -> list[Case]:
    want = {"key": "ctrl+j", "command": "workbench.action.focusActiveEditorGroup", "when": "terminalFocus"}
    entry = json.dumps([want]).encode()
    header = b"// Place your key bindings in this file to override the defaults\n"
    return [
        _keys("plain", entry, want),
        _keys("vs-code-header", header + entry, want),
        _keys("vs-code-header-crlf", header.replace(b"\n", b"\r\n") + entry, want),
        _keys("vs-code-header-lone-cr", header.replace(b"\n", b"\r") + entry, want),
        _keys("two-comment-lines", header + header + entry, want),
        _keys("extra-args", json.dumps([{**want, "args": {}}]).encode(), want),
        _keys("other-when", json.dumps([{**want, "when": "editorFocus"}]).encode(), want),
        _keys("among-others", json.dumps([{"key": "x", "command": "y"}, want]).encode(), want),
        _keys("object", json.dumps(want).encode(), want),
        _keys("bom", BOM + entry, want),
        _keys("trailing-comma", entry[:-1] + b",]", want),
        _keys("empty", b"", want),
        _keys("latin-1", header.replace(b"Place", "Plac\xe9".encode("latin-1")) + entry, want),
        _keys("missing", None, want),
    ]


def _is_extension_installed() -> list[Case]:
    contain = {"type": "contain", "expected": "0x1"}
    outputs = ["    HideFileExt    REG_DWORD    0x1\r\n", "    HideFileExt    REG_DWORD    0x0\r\n", "", None,
               "ms-python.python\nms-toolsai.jupyter\n"]
    cases = [Case("is_extension_installed", f"ext-{n}-{kind}", output, {**contain, "type": kind})
             for n, output in enumerate(outputs) for kind in ("contain", "not_contain")]
    cases.append(Case("is_extension_installed", "ext-unknown-type", "0x1", {**contain, "type": "equal"}))
    return cases


def zipped(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _compare_zip_files() -> list[Case]:
    from tests.suites.waa.corpus_browser import pdf

    members = {"Documents/a.txt": b"alpha", "Documents/b.docx": b"PK binary", "Documents/sub/c.txt": b"gamma"}
    gold = zipped(members)
    with_pdf = zipped({**members, "Documents/d.pdf": pdf(["A report on agents", "Page two"])})

    def case(name: str, mine: bytes | None, theirs: bytes | None = gold) -> Case:
        return Case("compare_zip_files", f"zip-{name}", None if mine is None else File(f"zip-{name}/r.zip", mine),
                    None if theirs is None else File(f"zip-{name}/g.zip", theirs))

    return [
        case("same", zipped(members)),
        case("stored-not-deflated", zipped(members, zipfile.ZIP_STORED)),
        case("member-differs", zipped({**members, "Documents/a.txt": b"alphA"})),
        case("member-missing", zipped({k: v for k, v in members.items() if "sub" not in k})),
        case("extra-member", zipped({**members, "Documents/e.txt": b""})),
        case("folder-entries", zipped({"Documents/": b"", **members})),
        case("not-a-zip", b"7z\xbc\xaf\x27\x1c not a zip"),
        case("missing", None),
        case("gold-missing", gold, None),
        case("pdf-same", with_pdf, with_pdf),
        case("pdf-reprinted", zipped({**members, "Documents/d.pdf": pdf(["A report on agents", "Page two"],
                                                                          title="other")}), with_pdf),
        case("pdf-other-text", zipped({**members, "Documents/d.pdf": pdf(["Quite another text", "Page 2"])}),
             with_pdf),
    ]


def cases() -> list[Case]:
    return (_exact_match() + _compare_text_file() + _check_json_settings() + _check_json_keybindings()
            + _is_extension_installed() + _compare_zip_files())
