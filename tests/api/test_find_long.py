"""GET /find through a live `actiondex serve`: a long request is answered (searched by its
rarest words, and says so), one over the bound is a clear 422, and group=site answers one
entry per site, paged by sites."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from harness.procs import serving
from registry.index.text import MAX_TERMS
from registry.search.contract import MAX_QUERY_CHARS
from tests.helpers.api import LONG_REQUEST
from tests.helpers.live import ingest_shops

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("find-store")
    ingest_shops(data_dir)
    with serving(data_dir) as base:
        yield base


def get(base: str, **params: Any) -> tuple[int, dict[str, Any]]:
    url = f"{base}/find?{urllib.parse.urlencode(params, doseq=True)}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_long_request_is_answered_by_its_rarest_words(live: str) -> None:
    assert len(LONG_REQUEST.split()) == 84 and len(LONG_REQUEST) == 569
    status, body = get(live, q=LONG_REQUEST)
    assert status == 200, body
    shortened = body["shortened"]
    assert len(shortened["terms"]) == MAX_TERMS and shortened["dropped"] > 0
    assert {"fountain", "pens"} <= set(shortened["terms"])  # the last words, kept
    words = LONG_REQUEST.lower().replace(",", " ").replace(".", " ").split()
    assert shortened["terms"] == sorted(shortened["terms"], key=words.index)  # its own order
    assert body["results"][0]["name"] == "search_catalog"  # "fountain pens" are sold there


def test_a_short_request_says_nothing_of_shortening(live: str) -> None:
    status, body = get(live, q="buy printer paper")
    assert status == 200 and "shortened" not in body and "sites" not in body


def test_the_bound_is_characters_and_a_request_over_it_is_a_clear_422(live: str) -> None:
    # Any script at the bound fits the request head: four UTF-8 bytes a character, 12 KiB
    # percent-encoded.
    status, body = get(live, q="\U0001f4dd" * MAX_QUERY_CHARS)
    assert status == 200 and body["results"] == []
    status, body = get(live, q="paper " * 170 + "x" * (MAX_QUERY_CHARS + 1 - 1020))
    assert status == 422
    assert body["error"] == {
        "code": "invalid-parameter",
        "field": "q",
        "message": f"must be at most {MAX_QUERY_CHARS} characters (it has {MAX_QUERY_CHARS + 1})",
    }


def test_group_site_is_one_entry_per_site_paged_by_sites(live: str) -> None:
    status, body = get(live, q="order paper", group="site")
    assert status == 200 and body["results"] == []
    hosts = [site["site"] for site in body["sites"]]
    assert len(hosts) == len(set(hosts)) == 2
    for site in body["sites"]:
        assert site["actions"] and {a["site"] for a in site["actions"]} == {site["site"]}
        assert site["score"] == site["actions"][0]["score"]
        assert len(site["actions"]) <= 3
    _, one = get(live, q="order paper", group="site", per_site=1, limit=1)
    _, two = get(live, q="order paper", group="site", per_site=1, limit=1, offset=1)
    assert [s["site"] for s in one["sites"] + two["sites"]] == hosts
    assert all(len(s["actions"]) == 1 for s in one["sites"] + two["sites"])
    _, past = get(live, q="order paper", group="site", offset=2)
    assert past["sites"] == []
