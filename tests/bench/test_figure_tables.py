"""A suite's own figures as the report's tables, whatever their shape (bench.figure_tables)."""

from html.parser import HTMLParser

from bench.figure_tables import figure_tables, figure_text


class Tables(HTMLParser):
    """The headings and table cells of an HTML fragment, as text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.headings: list[str] = []
        self.rows: list[list[str]] = []
        self._in: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("h3", "td", "th"):
            self._in = tag
            (self.headings if tag == "h3" else self.rows[-1]).append("")

    def handle_endtag(self, tag):
        self._in = None if tag in ("h3", "td", "th") else self._in

    def handle_data(self, data):
        if self._in == "h3":
            self.headings[-1] += data
        elif self._in:
            self.rows[-1][-1] += data


def test_the_shape_decides_rows_columns_and_nested_tables():
    figures = {"runs": 3, "overall": {"rate": 0.5, "spread": [0.25, 0.75], "inner": {"f1": 2 / 3}},
               "groups": {"a": {"rate": 1.0, "sites": {"x": {"rate": None}}}, "b": {"count": 2}}}
    found = Tables(figure_tables("mine", figures))
    assert found.headings == ["mine; runs: 3", "mine › groups", "mine › groups › a › sites"]
    assert found.rows == [["", "rate", "spread", "inner f1"], ["overall", "0.5", "[0.25, 0.75]", "0.6667"],
                          ["", "rate", "count"], ["a", "1", ""], ["b", "", "2"],
                          ["", "rate"], ["x", "n/a"]]


def test_names_from_the_data_are_escaped_and_a_plain_value_is_shown_as_it_is():
    text = figure_tables("<s>", {"<b>site</b>": {"name": "<i>x</i>", "flag": True, "list": [1, 2, 3]}})
    assert "<b>" not in text and "<i>" not in text and "<s>" not in text
    assert Tables(text).rows[1] == ["<b>site</b>", "<i>x</i>", "true", "[1, 2, 3]"]
    assert figure_tables("mine", [1, "a"]) == "<p>mine: [1, &quot;a&quot;]</p>"
    assert figure_text(None) == "n/a" and figure_text(0.123456) == "0.1235"
