"""FindQuery, the one query contract: its bounds, the schema they publish, and `origin`
(same-origin, cross-origin or both) through GET /find."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy.orm import Session

from registry.model.bounds import HOST_PATTERN
from registry.search import MAX_LIMIT, FindQuery
from registry.search.contract import (
    MAX_QUERY_CHARS,
    QUERY_PATTERN,
    TOKEN_PATTERN,
)
from tests.helpers.api import error, find_client

WORDS = " ".join(["cart"] * 200)  # many words, no bound on them: only on characters
# Strings where Python's idea of space, JSON Schema's (ECMA-262) and the limits part ways.
EDGES = [
    "cart",
    " cart ",
    "",
    " ",
    "\t\n",
    "\x1c",
    "cart\x1c",
    "\u3000",
    "\ufeff",
    "\x85",
    "x" * MAX_QUERY_CHARS,
    "x" * (MAX_QUERY_CHARS + 1),
    WORDS,
    WORDS + " cart",
    WORDS + "\u3000cart",
    WORDS + "\x1ccart",
    "cart\n",
    "\x00",
    "a\u00a0b",
]


def accepted(q: str) -> bool:
    try:
        FindQuery(q=q)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("q", EDGES)
def test_the_published_pattern_is_the_check(q: str) -> None:
    published = bool(re.fullmatch(QUERY_PATTERN, q)) and len(q) <= MAX_QUERY_CHARS
    assert accepted(q) == published


@pytest.mark.parametrize("q", EDGES)
def test_an_ecma_regex_engine_reads_the_schema_the_same_way(q: str) -> None:
    """What a client's validator (here jsonschema-rs, installed with schemathesis) makes of
    the published schema is what the server does."""
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    schema = FindQuery.model_json_schema()["properties"]["q"]
    assert jsonschema_rs.validator_for(schema).is_valid(q) == accepted(q)


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        (
            HOST_PATTERN,
            ["shop.example", "NEWS.example", "localhost:8080"],
            ["shop.example/x", "-bad", "shop.example\n", " shop.example"],
        ),
        (
            TOKEN_PATTERN,
            ["SearchAction", "https://schema.org/BuyAction", "reserve"],  # known types (issue 21)
            ["two words", "", "x" * 101, "POST\n"],
        ),
    ],
)
def test_host_and_token_patterns(pattern: str, good: list[str], bad: list[str]) -> None:
    field = "site" if pattern == HOST_PATTERN else "type"
    for value in good:
        assert FindQuery(q="x", **{field: [value]})
    for value in bad:
        with pytest.raises(ValidationError):
            FindQuery(q="x", **{field: [value]})
    assert FindQuery(q="x", site=["NEWS.example"]).site == ["news.example"]


@pytest.mark.parametrize(
    "bad",
    [
        {"limit": MAX_LIMIT + 1},
        {"limit": 0},
        {"offset": 201},
        {"per_site": 0},
        {"per_site": 51},
        {"origin": "both"},
        {"effect": ["READ"]},
        {"auth": ["password"]},
        {"site": ["a.example"] * 21},
    ],
)
def test_one_set_of_bounds(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        FindQuery(q="x", **bad)


def test_same_origin_still_means_what_it_did() -> None:
    assert FindQuery(q="x").origins == "any"  # the default since issue 20
    assert FindQuery(q="x", same_origin=True).origins == "same"
    assert FindQuery(q="x", same_origin=False).origins == "cross"
    assert FindQuery(q="x", same_origin=False, origin="any").origins == "any"  # origin wins


@pytest.fixture
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    """GET /find over the shop and news sites."""
    with find_client(session, tmp_path) as test_client:
        yield test_client


def names(client: TestClient, **params: Any) -> set[str]:
    response = client.get("/find", params={"q": "track article view search", **params})
    assert response.status_code == 200, response.text
    return {r["name"] for r in response.json()["results"]}


def test_origin_any_returns_same_and_cross_origin_results_together(client: TestClient) -> None:
    same, cross, both = (names(client, origin=o) for o in ("same", "cross", "any"))
    assert "track_event" not in same and "search" in same
    assert cross == {"track_event"}
    assert both >= same | cross
    assert names(client) == both  # the default is `any` since issue 20
    assert names(client, same_origin="false") == cross
    assert names(client, same_origin="true") == same


def test_a_bad_origin_is_a_structured_422(client: TestClient) -> None:
    response = client.get("/find", params={"q": "search", "origin": "sideways"})
    assert response.status_code == 422 and error(response)["field"] == "origin"
