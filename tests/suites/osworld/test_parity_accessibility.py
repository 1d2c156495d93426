"""troupe's check_accessibility_tree agrees with OSWorld's own (metrics/general.py, imported from
../shared/osworld/reference for tests only) on trees built as OSWorld's server writes them (lxml elements
named by role, `name`, `st:`/`attr:` attributes in its namespaces, text as element text): Thunderbird's
account setup page, tab bar and message compose header under the three tasks' own rules, solved and each
way not (the address only in a name, outside Thunderbird, a pill before the To label, a tab one level
deeper); text rules exact and fuzzy, over several elements and over none; XPath answers that are numbers,
booleans or strings; Windows' and macOS's namespaces; selectors and XPath that do not parse, rules with
neither, `text` without `exact`, rules that are not a list, trees that are not XML, no tree. Prints the
agreement."""

from __future__ import annotations

from typing import Any

import lxml.etree
import pytest

from bench.suites.osworld.accessibility import NAMESPACES, check_accessibility_tree

from tests.osworld_reference import REFERENCE, Case, assert_agrees, general

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")


def node(role: str, name: str = "", *children: lxml.etree._Element, text: str = "", osname: str = "ubuntu",
         **attributes: str) -> lxml.etree._Element:
    """An element as OSWorld's _create_atspi_node makes one: `st_<state>`/`attr_<key>` keywords are the
    namespaced attributes."""
    spaces = NAMESPACES[osname]
    attrib = {"name": name}
    for key, value in attributes.items():
        prefix, _, local = key.partition("_")
        attrib[f"{{{spaces[prefix]}}}{local}"] = value
    element = lxml.etree.Element(role, attrib=attrib, nsmap=spaces)
    if text:
        element.text = text
    element.extend(children)
    return element


def desktop(*applications: lxml.etree._Element, osname: str = "ubuntu") -> str:
    return lxml.etree.tostring(node("desktop-frame", "Desktop", *applications, osname=osname), encoding="unicode")


def thunderbird(*content: lxml.etree._Element, name: str = "Thunderbird") -> lxml.etree._Element:
    return node("application", name, node("frame", "Mozilla Thunderbird", *content, st_showing="true",
                                          st_visible="true", cp_screencoord="(0, 0)", cp_size="(1920, 1080)"))


ADDRESS = "anonym-x2024@outlook.com"
ACCOUNT = [{"xpath": f"//application[@name='Thunderbird']//*[contains(text(), '{ADDRESS}') or "
                     f"contains(@name, '{ADDRESS}')]"},
           {"xpath": "//application[@name='Thunderbird']//*[contains(@name, 'password') or contains(@name, 'Password')]"}]
"""thunderbird/15c3b339's rules: the account setup page filled in."""


def setup_page(address: str = ADDRESS, password: bool = True, address_as: str = "text") -> lxml.etree._Element:
    entry = (node("entry", "Email address", text=address, st_editable="true", attr_id="email")
             if address_as == "text" else node("label", address))
    fields = [node("entry", "Your full name", text="Anonym", attr_id="realname"), entry]
    if password:
        fields.append(node("password-text", "Password", text="\u25cf" * 8, attr_id="password"))
    return node("document-web", "Account Setup", node("form", "", *fields))


PROFILES_TAB = [{"selectors": [('application[name=Thunderbird] page-tab-list[attr|id="tabmail-tabs"]'
                                '>page-tab[name="About Profiles"]')]}]
"""thunderbird/7b1e1ff9's rule: the About Profiles tab open in Thunderbird's tab bar."""


def tabs(*names: str, list_id: str = "tabmail-tabs", wrapped: bool = False) -> lxml.etree._Element:
    pages = [node("page-tab", name, st_selectable="true") for name in names]
    if wrapped:
        pages = [node("section", "", *pages)]
    return node("page-tab-list", "", *pages, attr_id=list_id)


PAYERS = ("fox", "iron", "nancy", "stella")
RECIPIENTS = [{"selectors": [('tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class="address-pill"]'
                              f'>label[attr|class="pill-label"][name*="{who}@someuniversity.edu"]')]}
              for who in PAYERS]
"""multi_apps/f5c13cdd's rules: the four unpaid students' addresses as pills in the To field."""


def pill(address: str) -> lxml.etree._Element:
    return node("section", address, node("label", address, attr_class="pill-label"), attr_class="address-pill")


def header(*addresses: str, pills_first: bool = False, toolbar: str = "MsgHeadersToolbar") -> lxml.etree._Element:
    to = node("label", "To")
    pills = [pill(address) for address in addresses]
    row = [*pills, to] if pills_first else [to, *pills]
    return node("tool-bar", "", node("section", "", *row, node("entry", "", attr_class="address-row-input")),
                attr_id=toolbar)


EVERYONE = [f"{who}@someuniversity.edu" for who in PAYERS]
SOLVED_SETUP = desktop(thunderbird(tabs("Inbox", "Account Setup"), setup_page()))
WINDOWS_TREE = desktop(node("window", "Notepad", node("edit", "Text editor", text="hello", class_Edit="true", osname="windows"),
                            osname="windows"), osname="windows")
MACOS_TREE = desktop(node("application", "Notes", node("text-area", "Body", text="hello", role_kind="AXTextArea",
                                                       osname="macos"), osname="macos"), osname="macos")


def text_rule(selector: str, text: str, exact: Any = True) -> dict[str, Any]:
    return {"selectors": [selector], "text": text, "exact": exact}


C = Case
CASES = [
    C(SOLVED_SETUP, ACCOUNT), C(desktop(thunderbird(setup_page(address_as="name"))), ACCOUNT),
    C(desktop(thunderbird(setup_page(address="anonym-x2024@outlook"))), ACCOUNT),
    C(desktop(thunderbird(setup_page(password=False))), ACCOUNT),
    C(desktop(node("application", "gedit", node("text", "", text=ADDRESS)), thunderbird(setup_page(address=""))),
      ACCOUNT),
    C(desktop(thunderbird(setup_page(), name="Thunderbird Daily")), ACCOUNT),
    C(desktop(thunderbird(tabs("Inbox", "About Profiles"))), PROFILES_TAB),
    C(desktop(thunderbird(tabs("Inbox", "About Profiles", wrapped=True))), PROFILES_TAB),
    C(desktop(thunderbird(tabs("Inbox", "About Profiles", list_id="other-tabs"))), PROFILES_TAB),
    C(desktop(thunderbird(tabs("Inbox", "about:profiles"))), PROFILES_TAB), C(desktop(thunderbird(tabs("Inbox"))),
                                                                              PROFILES_TAB),
    C(desktop(node("application", "Firefox", tabs("About Profiles"))), PROFILES_TAB),
    C(desktop(thunderbird(header(*EVERYONE))), RECIPIENTS), C(desktop(thunderbird(header(*EVERYONE[:3]))), RECIPIENTS),
    C(desktop(thunderbird(header(*EVERYONE, pills_first=True))), RECIPIENTS),
    C(desktop(thunderbird(header(*(f"{a.title()} <{a}>" for a in EVERYONE)))), RECIPIENTS),
    C(desktop(thunderbird(header(*EVERYONE, toolbar="MsgComposeToolbar"))), RECIPIENTS),
    C(SOLVED_SETUP, [text_rule("entry[attr|id=email]", ADDRESS)]),
    C(SOLVED_SETUP, [text_rule("entry[attr|id=email]", ADDRESS.upper())]),
    C(SOLVED_SETUP, [text_rule("entry", ADDRESS)]), C(SOLVED_SETUP, [text_rule("entry", "anonym@outlook.com", False)]),
    C(SOLVED_SETUP, [text_rule("entry", "Anonym", False), text_rule("entry[attr|id=email]", "anonym-x", False)]),
    C(SOLVED_SETUP, [text_rule("form", "", False)]), C(SOLVED_SETUP, [text_rule("form", "anything", False)]),
    C(SOLVED_SETUP, [text_rule("form", "anything", 0)]), C(SOLVED_SETUP, [text_rule("nothing", "x")]),
    C(SOLVED_SETUP, [{"selectors": ["entry"], "text": ADDRESS}]), C(SOLVED_SETUP, [{"text": ADDRESS, "exact": True}]),
    C(SOLVED_SETUP, [{"xpath": "count(//entry)"}]), C(SOLVED_SETUP, [{"xpath": "boolean(//entry)"}]),
    C(SOLVED_SETUP, [{"xpath": "//entry/@name"}]), C(SOLVED_SETUP, [{"xpath": "//entry/@name", "text": "x", "exact": True}]),
    C(SOLVED_SETUP, [{"xpath": "//entry[", "selectors": ["entry"]}]), C(SOLVED_SETUP, [{"selectors": ["entry[["]}]),
    C(SOLVED_SETUP, [{"xpath": "//nope:entry"}]), C(SOLVED_SETUP, [{"selectors": ["entry", "password-text"]}]),
    C(SOLVED_SETUP, [{"xpath": "//entry", "selectors": ["nothing"]}]), C(SOLVED_SETUP, [{"selectors": []}]),
    C(SOLVED_SETUP, []), C(SOLVED_SETUP, {"xpath": "//entry"}), C(SOLVED_SETUP, None),
    C(WINDOWS_TREE, [{"xpath": "//edit[@class:Edit='true']"}], osname="windows"),
    C(WINDOWS_TREE, [{"xpath": "//edit[@class:Edit='true']"}]),
    C(MACOS_TREE, [{"selectors": ["text-area[role|kind=AXTextArea]"], "text": "hello", "exact": True}], osname="macos"),
    C(SOLVED_SETUP, ACCOUNT, osname="linux"),
    C('<?xml version="1.0" encoding="UTF-8"?>' + SOLVED_SETUP, ACCOUNT), C("", ACCOUNT), C("not a tree", ACCOUNT),
    C(None, ACCOUNT),
]


def test_check_accessibility_tree_agrees_with_osworlds_own(tmp_path, capsys):
    assert check_accessibility_tree(SOLVED_SETUP, ACCOUNT) == 1.0
    assert check_accessibility_tree(desktop(thunderbird(header(*EVERYONE[:3]))), RECIPIENTS) == 0.0
    assert_agrees("check_accessibility_tree", general().check_accessibility_tree, check_accessibility_tree, CASES,
                  tmp_path, capsys)
