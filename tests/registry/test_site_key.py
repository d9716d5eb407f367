"""The site key (issue 20): ``host`` on the scheme's default port, ``host:port`` otherwise, one
function (registry.model.urls.site_key) for the crawler, ingest, submissions and lookups."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from crawler.targets import site_origin
from registry.model.urls import key_host, site_key
from registry.placement import place
from registry.store.site_list import find_site, host_key
from tests.helpers.stores import add_site


@pytest.mark.parametrize(
    "url,key",
    [
        ("https://Kites.test/", "kites.test"),
        ("https://kites.test:443/x", "kites.test"),
        ("http://kites.test:80/", "kites.test"),
        ("http://kites.test:18111/", "kites.test:18111"),
        ("https://kites.test:80/", "kites.test:80"),
        ("http://[::1]:8080/", "[::1]:8080"),
        ("http://[::1]/", "::1"),
        ("not a url", ""),
    ],
)
def test_site_key(url: str, key: str) -> None:
    assert site_key(url) == key


def test_key_host() -> None:
    assert key_host("kites.test:18111") == "kites.test"
    assert key_host("kites.test") == "kites.test"
    assert key_host("[::1]:8080") == "::1"
    assert key_host("::1") == "::1"


def test_every_door_names_a_site_by_its_key() -> None:
    assert site_origin("http://kites.test:18111/a") == (
        "kites.test:18111",
        "http://kites.test:18111",
    )
    assert site_origin("kites.test") == ("kites.test", "https://kites.test")
    assert place(b"{}", "x.json", "http://kites.test:18111").site == "kites.test:18111"
    assert host_key("kites.test:18111") == "kites.test:18111"
    assert host_key("http://KITES.test:18111/x") == "kites.test:18111"
    assert host_key("kites.test:80") == host_key("kites.test:443") == "kites.test"


def test_a_bare_host_names_its_only_site_on_another_port(session: Session) -> None:
    north = add_site(session, "kites.test:18110", [])
    assert find_site(session, "kites.test:18110") is north
    assert find_site(session, "kites.test") is north  # the one site on that host
    assert find_site(session, "kites.test:18111") is None
    south = add_site(session, "kites.test:18111", [])
    assert find_site(session, "kites.test:18111") is south
    assert find_site(session, "kites.test") is None  # two sites: the bare host names neither
    bare = add_site(session, "kites.test", [])
    assert find_site(session, "kites.test") is bare
    assert find_site(session, "kites_test") is None
