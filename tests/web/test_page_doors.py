"""What a new user meets on the web page (issue 21): a home page that says what the registry
holds and how to ask it, every form error at once with its own field marked, and times people
read (the exact ISO string kept in the <time> element)."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from fastapi.testclient import TestClient


def test_the_home_page_shows_counts_and_example_requests(client: TestClient) -> None:
    html = client.get("/").text
    stats = client.get("/stats").json()
    counts = f"{stats['actions']} actions and {stats['flows']} flow"
    assert "In this registry" in html and counts in html, html
    assert f"from {stats['sites']} sites" in html
    assert '<a href="/?q=buy+printer+paper">buy printer paper</a>' in html
    assert '<a href="/find?q=buy+printer+paper">' in html and 'href="/docs"' in html


def test_every_form_error_is_listed_and_marks_its_own_field(client: TestClient) -> None:
    asked = [("q", "paper"), ("effect", "pay"), ("site", "a b")]
    response = client.get("/?" + urlencode(asked))
    assert response.status_code == 422
    html = response.text
    alert = html.split('role="alert"', 1)[1].split("</div>", 1)[0]
    assert "<strong>Effect</strong>" in alert and "<strong>Site</strong>" in alert, alert
    marked = re.findall(r'<input[^>]*id="(\w+)"[^>]*aria-invalid="true"', html)
    assert marked == ["site"], marked  # not the query box, which was fine
    assert 'aria-describedby="problem-effect"' in html


def test_times_read_as_dates_with_the_iso_string_kept(client: TestClient) -> None:
    html = client.get("/view/sites/bakery.example").text
    times = re.findall(r'<time datetime="([^"]+)" title="\1">([^<]+)</time>', html)
    assert times, html
    for iso, shown in times:
        assert "T" in iso, iso
        assert re.fullmatch(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d UTC", shown), (iso, shown)
    assert not re.search(r">\d{4}-\d\d-\d\dT[^<]*<", html.replace("</time>", ""))
