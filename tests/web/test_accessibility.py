"""Every page, read as a screen reader would: a language, landmarks, a skip link to the main
content, one h1 and headings that never skip a level, a label for every field."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from registry.model.schemas import stable_id

CAKE = stable_id("bakery.example", "agent-actions", "order_cake")
PURCHASE = stable_id("shop.example", "agent-actions", "flow:purchase")
PAGES = [
    "/",
    "/?q=search",
    "/?q=",
    "/validator",
    f"/view/actions/{CAKE}",
    f"/view/flows/{PURCHASE}",
    "/view/sites/shop.example",
    "/view/actions/nope",
]


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.lang: str | None = None
        self.headings: list[int] = []
        self.ids: set[str] = set()
        self.labelled: set[str] = set()
        self.fields: list[str] = []  # ids of the fields needing a label ("" when none)
        self.in_label = 0
        self.skip: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "html":
            self.lang = a.get("lang")
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.headings.append(int(tag[1]))
        if tag == "a" and a.get("class") == "skip":
            self.skip = a.get("href")
        if tag == "label":
            self.in_label += 1
            if a.get("for"):
                self.labelled.add(a["for"] or "")
        if tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            self.fields.append("(wrapped)" if self.in_label else a.get("id") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self.in_label -= 1


def outline(html: str) -> _Outline:
    parsed = _Outline()
    parsed.feed(html)
    return parsed


@pytest.mark.parametrize("url", PAGES)
def test_a_page_reads_well_without_seeing_it(client: TestClient, url: str) -> None:
    page = outline(client.get(url).text)
    assert page.lang == "en"
    assert {"header", "nav", "main", "footer"} <= set(page.tags)
    assert page.skip == "#main" and "main" in page.ids
    assert page.headings.count(1) == 1 and page.headings[0] == 1, page.headings
    for before, after in zip(page.headings, page.headings[1:], strict=False):
        assert after <= before + 1, page.headings  # never h2 -> h4
    for field in page.fields:
        assert field == "(wrapped)" or field in page.labelled, (url, field)


def test_the_validator_report_and_the_preview_read_well_too(client: TestClient) -> None:
    report = client.post("/validator", data={"manifest": '{"schema": "agent-actions/0.1"'})
    preview = client.post(f"/view/actions/{CAKE}/prepare", data={"size": "2"})
    problems = client.post(f"/view/actions/{CAKE}/prepare", data={"size": "x"})
    for response in (report, preview, problems):
        page = outline(response.text)
        assert page.headings.count(1) == 1
        for before, after in zip(page.headings, page.headings[1:], strict=False):
            assert after <= before + 1, page.headings
