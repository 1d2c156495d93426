"""A recorded Mind2Web page as troupe shows it: its candidate elements as the normalized UI tree.

Mind2Web's candidates (`pos_candidates` + `neg_candidates`) are the elements an
action could be on; the agent is scored on picking a positive one (element
accuracy, `bench.suites.mind2web.scoring`). Each becomes one `UIElement`:
its `backend_node_id` as node_id (what Mind2Web scores), a role from its tag
and attributes, a name from its label or its text in `cleaned_html`, and its
`bounding_box_rect` as box. A `<select>` gets its `<option>`s as children
(node_id `<select id>/option/<n>`), so an agent selects by clicking one or by
typing the option's text into the select. The candidates are listed in
document order (by node id), never positives first.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from html.parser import HTMLParser

from PIL import Image, UnidentifiedImageError

from protocols import BBox, UIElement, Viewport

from actors.llm.marks import INTERACTIVE
from bench.suites.mind2web.dataset import DatasetError, RawAction, attributes_of

__all__ = ["OPTION", "Candidate", "Page", "page_of"]

OPTION = "/option/"
"""Between a select's node_id and an option's number, in an option's node_id."""
MAX_TEXT = 120
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_NAMES = ("aria_label", "label", "placeholder", "title", "alt", "value", "input_value", "name")
"""Attributes that name an element when it has no text of its own, in order of preference."""
_INPUT_ROLES = {"checkbox": "checkbox", "radio": "radio", "submit": "button", "button": "button", "reset": "button",
                "image": "button", "search": "searchbox"}
_TAG_ROLES = {"a": "link", "button": "button", "select": "combobox", "textarea": "textbox", "option": "option",
              "li": "listitem"}


@dataclass(frozen=True)
class Candidate:
    node_id: str
    tag: str
    role: str
    name: str
    bbox: BBox | None
    options: tuple[str, ...] = ()
    """The option texts of a `<select>`, in order."""

    def element(self) -> UIElement:
        children = tuple(UIElement(node_id=f"{self.node_id}{OPTION}{number}", role="option", name=text)
                         for number, text in enumerate(self.options, start=1))
        return UIElement(node_id=self.node_id, role=self.role, name=self.name, bbox=self.bbox, children=children)


@dataclass(frozen=True)
class Page:
    """One recorded page: the label of its action, its candidates and the screenshot before it."""

    action_uid: str
    op: str
    value: str
    positives: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    screenshot: bytes = b""
    viewport: Viewport | None = None
    by_id: dict[str, Candidate] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.by_id.update((candidate.node_id, candidate) for candidate in self.candidates)

    def tree(self, website: str) -> UIElement:
        return UIElement(node_id="page", role="document", name=website,
                         children=tuple(candidate.element() for candidate in self.candidates))

    def option(self, node_id: str) -> tuple[Candidate, str] | None:
        """The select and option text an option's node_id names, if it names one."""
        select_id, sep, number = node_id.partition(OPTION)
        select = self.by_id.get(select_id)
        if not sep or select is None or not number.isdigit() or not 1 <= int(number) <= len(select.options):
            return None
        return select, select.options[int(number) - 1]

    def at(self, x: float, y: float) -> Candidate | None:
        """The smallest candidate whose box holds the point: what a click there lands on."""
        holding = [c for c in self.candidates if c.bbox is not None and c.bbox.contains(x, y)]
        return min(holding, key=lambda c: c.bbox.width * c.bbox.height, default=None)


def page_of(action: RawAction, screenshot: bytes = b"", where: str = "", *, texts: bool = True) -> Page:
    """The page an action was recorded on; `where` names the screenshot's file and field for an error.
    `texts` False leaves cleaned_html unread: no names from text, no options (faster, for scoring)."""
    read = _Texts(action.cleaned_html if texts else "")
    raw = [*action.pos_candidates, *action.neg_candidates]
    candidates = {c.backend_node_id: _candidate(c.backend_node_id, c.tag, attributes_of(c), read) for c in raw}
    ordered = sorted(candidates.values(), key=lambda c: (not c.node_id.isdigit(), int(c.node_id) if
                                                         c.node_id.isdigit() else 0, c.node_id))
    return Page(action_uid=action.action_uid, op=action.operation.op, value=action.operation.value,
                positives=tuple(c.backend_node_id for c in action.pos_candidates), candidates=tuple(ordered),
                screenshot=screenshot, viewport=_size(screenshot, where) if screenshot else None)


def _size(screenshot: bytes, where: str) -> Viewport:
    try:
        width, height = Image.open(io.BytesIO(screenshot)).size
    except (UnidentifiedImageError, OSError) as exc:
        raise DatasetError(f"mind2web: {where}: not an image: {exc}") from None
    return Viewport(width, height)


def _candidate(node_id: str, tag: str, attributes: dict[str, str], texts: _Texts) -> Candidate:
    tag = (tag or texts.tags.get(node_id, "")).lower()
    # a select's own text is its options run together: they are its children instead
    text = "" if tag == "select" else " ".join(texts.text.get(node_id, "").split())
    name = attributes.get("aria_label") or text or next((attributes[k] for k in _NAMES if attributes.get(k)), "")
    return Candidate(node_id=node_id, tag=tag, role=_role(tag, attributes), name=name[:MAX_TEXT],
                     bbox=_box(attributes.get("bounding_box_rect", "")),
                     options=tuple(texts.options.get(node_id, ())) if tag == "select" else ())


def _role(tag: str, attributes: dict[str, str]) -> str:
    """The ARIA role when it is one an agent acts on; else what the tag is; a candidate of any other
    tag (a clickable div or span) is "clickable": Mind2Web chose it as something to act on."""
    aria = attributes.get("role", "").lower()
    if aria in INTERACTIVE:
        return aria
    if tag == "input":
        return _INPUT_ROLES.get(attributes.get("type", "").lower(), "textbox")
    return _TAG_ROLES.get(tag, "clickable")


def _box(rect: str) -> BBox | None:
    """Mind2Web's "x,y,width,height"; "-1,-1,-1,-1" (not rendered) and anything unreadable is no box."""
    try:
        x, y, width, height = (float(part) for part in rect.split(","))
    except ValueError:
        return None
    if width <= 0 or height <= 0:
        return None
    return BBox(x, y, width, height)


class _Texts(HTMLParser):
    """The text inside each element with a `backend_node_id` in cleaned_html (bounded), its tag, and a
    select's option texts. cleaned_html is well formed, but an unclosed element is closed by its parent's end."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text: dict[str, str] = {}
        self.tags: dict[str, str] = {}
        self.options: dict[str, list[str]] = {}
        self._open: list[tuple[str, str | None]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = dict(attrs).get("backend_node_id")
        if node:
            self.tags[node] = tag
            self.text.setdefault(node, "")
        if tag == "option":
            select = next((n for t, n in reversed(self._open) if t == "select" and n), None)
            if select is not None:
                self.options.setdefault(select, []).append("")
        if tag not in _VOID:
            self._open.append((tag, node))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, -1, -1):
            if self._open[depth][0] == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        if not data.strip():
            return
        for tag, node in self._open:
            if node is not None and len(self.text[node]) < 4 * MAX_TEXT:
                self.text[node] += " " + data
        if any(tag == "option" for tag, _ in self._open):
            select = next((n for t, n in reversed(self._open) if t == "select" and n), None)
            if select is not None and self.options.get(select):
                self.options[select][-1] = " ".join((self.options[select][-1] + " " + data).split())
