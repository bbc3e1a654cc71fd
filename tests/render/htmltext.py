"""The visible text of an rlvitals HTML page, one block a line (what the golden files hold)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = {
    "p",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "li",
    "tr",
    "section",
    "header",
    "footer",
    "article",
    "blockquote",
    "table",
    "ul",
    "br",
}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "title"):
            self.skip += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title"):
            self.skip -= 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def page_text(html: str) -> str:
    p = _Text()
    p.feed(html)
    lines = [re.sub(r"\s+", " ", ln).strip() for ln in "".join(p.parts).splitlines()]
    text = "\n".join(ln for ln in lines if ln)
    return re.sub(r"rlvitals \d+\.\d+\.\d+(?:[.+-][0-9A-Za-z.]+)?", "rlvitals <version>", text) + "\n"
