"""Cases for the Chrome and Edge metrics, on the values WAA's getters return (tabs, bookmarks, cookie
and history rows, preferences, shortcuts, the page's parsed URL), and compare_pdfs on PDFs."""

from __future__ import annotations

from typing import Any

from tests.suites.waa.corpus import Case, File


def pdf(pages: list[str], *, title: str = "report") -> bytes:
    """A PDF with one line of text per page, as a print-to-PDF writes it."""
    import fitz

    document = fitz.open()
    document.set_metadata({"title": title})
    for text in pages:
        document.new_page().insert_text((72, 72), text, fontsize=12)
    return document.tobytes()


def _rule_cases(func: str, results: dict[str, Any], rules: dict[str, dict[str, Any]]) -> list[Case]:
    return [Case(func, f"{func}-{r}-{rule}", result, rules[rule]) for r, result in results.items() for rule in rules]


def _tabs() -> list[Case]:
    urls = ["https://www.lonelyplanet.com", "https://www.airbnb.com", "https://www.tripadvisor.com"]
    tabs = {
        "same": [{"title": "", "url": u} for u in urls],
        "slashes-and-case": [{"url": u.upper().replace("HTTPS://WWW.", "https://") + "/"} for u in urls],
        "reordered": [{"url": u} for u in reversed(urls)],
        "one-more": [{"url": u} for u in urls + ["chrome://newtab/"]],
        "duplicate": [{"url": urls[0]}, {"url": urls[0]}, {"url": urls[1]}],
        "query": [{"url": u + "/?ref=x"} for u in urls],
        "none": [],
    }
    return _rule_cases("is_expected_tabs", tabs, {"url": {"type": "url", "urls": urls},
                                                  "other": {"type": "title", "urls": urls}})


def _active_tab() -> list[Case]:
    url = "https://discussions.flightaware.com/t/the-banter-thread/4412"
    results = {"same": {"url": url, "title": "x"}, "slash": {"url": url + "/"}, "string": url,
               "fragment": {"url": url + "#post_1"}, "none": None, "empty": {}, "no-url": {"title": "x"}}
    return _rule_cases("is_expected_active_tab", results, {"url": {"type": "url", "url": url},
                                                           "other": {"type": "title", "url": url}})


def _bookmarks() -> list[Case]:
    url = "https://jalammar.github.io/illustrated-transformer/"

    def bar(*children: dict[str, Any]) -> dict[str, Any]:
        return {"bookmark_bar": {"children": list(children)}, "other": {"children": []}}

    link = {"type": "url", "name": "T", "url": url}
    folder = {"type": "folder", "name": "Liked Authors", "children": [link]}
    results = {"link": bar(link), "no-slash": bar({**link, "url": url.rstrip("/")}), "in-folder": bar(folder),
               "empty-bar": bar(), "none": None, "no-bar": {"other": {}}}
    rules = {"urls": {"type": "bookmark_bar_websites_urls", "urls": [url]},
             "folders": {"type": "bookmark_bar_folders_names", "names": ["Liked Authors"]},
             "liked": {"type": "liked_authors_websites_urls", "urls": [[url, "https://x.org"]]},
             "other": {"type": "bookmark_bar_everything"}}
    return _rule_cases("is_expected_bookmarks", results, rules)


def _cookies_and_history() -> list[Case]:
    cookies = {"amazon": [("id", ".amazon.com", "/"), ("id", "google.com", "/")],
               "www-amazon": [("id", "www.amazon.com", "/")], "other": [("id", ".google.com", "/")],
               "empty": [], "none": None}
    history = {"youtube": [("https://www.youtube.com/watch?v=1", "t", 0)], "other": [("https://x.org/", "t", 0)],
               "upper": [("https://YOUTUBE.com/", "t", 0)], "empty": [], "none": None}
    return (_rule_cases("is_cookie_deleted", cookies, {"domains": {"type": "domains", "domains": [".amazon.com"]},
                                                       "other": {"type": "names", "domains": []}})
            + _rule_cases("check_history_deleted", history, {"keywords": {"type": "keywords", "keywords": ["youtube"]},
                                                             "other": {"type": "urls", "keywords": []}}))


def _preferences() -> list[Case]:
    experiments = {"set": ["show-performance-metrics-hud@1"], "two": ["show-performance-metrics-hud@1", "x@1"],
                   "bare": ["show-performance-metrics-hud"], "none-set": []}
    sizes = {str(n): {"default_font_size": n} for n in (15, 16, 17, 24, 99999)} | {"no-key": {}}
    size_rules = {"range-16": {"type": "range", "min": 16, "max": 99999}, "range-24": {"type": "range", "min": 24,
                                                                                      "max": 99999},
                  "value": {"type": "value", "value": 16}, "other": {"type": "exact", "value": 16}}
    return (_rule_cases("check_enabled_experiments", experiments,
                        {"names": {"type": "names", "names": ["show-performance-metrics-hud"]},
                         "other": {"type": "ids", "names": []}})
            + _rule_cases("check_font_size", sizes, size_rules) + _rule_cases("check_edge_font_size", sizes, size_rules))


def _json_object() -> list[Case]:
    expected = {"fromStation": "BOM", "toStation": "STO", "time": "2024-03-04"}
    results = {"same": dict(expected), "extra-key": {**expected, "x": "1"}, "missing-key": {"fromStation": "BOM"},
               "other-time": {**expected, "time": "2024-03-05"}, "none": None, "text": str(expected),
               "bad-text": "{not json", "list": [1]}
    rules = {"exact": {"expected": expected},
             "in-result": {"expected": {"fromStation": "BO", "toStation": ["STO", "ARN"]}, "expect_in_result": True},
             "in-result-number": {"expected": {"fromStation": 1}, "expect_in_result": True}}
    return _rule_cases("check_direct_json_object", results, rules)


def _shortcuts() -> list[Case]:
    description = "Play Puzzle Game 2048. Use your arrow keys to move the tiles."
    results = {"json": {"C:\\Users\\Docker\\Desktop\\2048.lnk": '{"data": {"description": "' + description + '"}}'},
               "other-json": {"a.lnk": '{"data": {"description": "Other"}}'},
               "not-json": {"a.lnk": "Name=2048\n"}, "empty": {}, "none": None, "list": ["a.lnk"]}
    rules = {"description": {"type": "description", "description": description},
             "name": {"type": "name", "name": "2048"}, "url": {"type": "url", "url": "x"}}
    url = "https://www.mathsisfun.com/games/2048.html"
    url_results = {"has": {"2048.url": f"[InternetShortcut]\nURL={url}\n"}, "other": {"a.url": "URL=https://x.org\n"},
                   "empty": {}, "none": None}
    return (_rule_cases("is_shortcut_on_desktop", results, rules)
            + _rule_cases("is_url_shortcut_on_desktop", url_results, {"url": {"type": "url", "url_content": url},
                                                                      "other": {"type": "name", "url_content": url}}))


def _steam_cart() -> list[Case]:
    item = "The Dota 2 Official Soundtrack"
    results = {"has": {"content": f"Cart: {item} $9.99"}, "other": {"content": "Cart is empty"},
               "no-content": {"url": "x"}, "none": None}
    return _rule_cases("is_added_to_steam_cart", results, {"items": {"items": [item]}, "none": {"items": []}})


def _pdfs() -> list[Case]:
    gold = pdf(["LLM Powered Autonomous Agents", "Planning and memory"])

    def case(name: str, mine: Any, theirs: Any = File("gold.pdf", gold)) -> Case:
        return Case("compare_pdfs", f"pdf-{name}", mine, theirs)

    return [
        case("same", File("same.pdf", gold)),
        case("reprinted", File("reprinted.pdf", pdf(["LLM Powered Autonomous Agents", "Planning and memory"],
                                                     title="other"))),
        case("one-page-less", File("short.pdf", pdf(["LLM Powered Autonomous Agents"]))),
        case("other-text", File("other.pdf", pdf(["Quite another document"]))),
        case("multi-line-pages", File("ml.pdf", pdf(["Agents\nplan, remember\nand act.", "Tools: search, code"])),
             File("mlg.pdf", pdf(["Agents\nplan, remember and act.", "Tools:  search,  code", "References"]))),
        case("not-a-pdf", File("bad.pdf", b"%PDF-1.4 broken")),
        case("missing", None),
        case("both-missing", None, None),
        case("lists", [File("l1.pdf", gold), File("l2.pdf", b"junk")], [File("g1.pdf", gold), File("g2.pdf", gold)]),
    ]


def cases() -> list[Case]:
    return (_tabs() + _active_tab() + _bookmarks() + _cookies_and_history() + _preferences() + _json_object()
            + _shortcuts() + _steam_cart() + _pdfs())
