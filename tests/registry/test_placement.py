"""registry.placement: the one rule that puts a local document on its site (ingest, validate,
POST /validate), each format saying where its documents name their site."""

from __future__ import annotations

import json
from typing import Any

import pytest

from registry.placement import UNKNOWN_ORIGIN, origin_of, place

PAGE = (
    b'<!doctype html><html><head><script type="application/ld+json">'
    b'{"@context": "https://schema.org", "@type": "WebSite", "url": "https://page.example/",'
    b' "potentialAction": {"@type": "SearchAction", "target": "/s?q={q}",'
    b' "query-input": "required name=q"}}</script></head></html>'
)


@pytest.mark.parametrize(
    "document,site",
    [
        ({"schema": "agent-actions/0.1", "site": "shop.example", "actions": []}, "shop.example"),
        (
            {"schema": "agent-actions/0.1", "site": "http://shop.example:8080/x"},
            "shop.example:8080",
        ),
        ({"schema": "agent-actions/0.1", "site": {"url": "https://SHOP.example"}}, "shop.example"),
        (
            {
                "schema_version": "v1",
                "name_for_model": "p",
                "api": {"url": "https://p.example/o.y"},
            },
            "p.example",
        ),
        (
            {
                "openapi": "3.1.0",
                "info": {},
                "paths": {},
                "servers": [{"url": "https://api.example/v1"}],
            },
            "api.example",
        ),
        ({"swagger": "2.0", "info": {}, "paths": {}, "host": "old.example"}, "old.example"),
        ({"linkset": [{"anchor": "https://cat.example/api", "service-desc": []}]}, "cat.example"),
        ({"name": "Agent", "skills": [], "url": "https://agent.example/a2a"}, "agent.example"),
        (
            {"name": "io.x/srv", "remotes": [{"type": "sse", "url": "https://mcp.example/sse"}]},
            "mcp.example",
        ),
        (
            {
                "@context": "https://schema.org",
                "@graph": [
                    {"@type": "Product", "url": "https://elsewhere.example/p"},
                    {"@type": "WebSite", "url": "https://site.example/"},
                ],
            },
            "site.example",
        ),
    ],
)
def test_each_format_names_its_site(document: dict[str, Any], site: str) -> None:
    placed = place(json.dumps(document).encode(), "doc.json")
    assert placed.named and placed.site == site


def test_origin_wins_and_well_known_files_keep_their_place() -> None:
    body = b'{"schema": "agent-actions/0.1", "site": "shop.example"}'
    placed = place(body, "agent-actions.json", "other.example")
    assert placed.url == "https://other.example/.well-known/agent-actions.json"
    assert place(body, "notes.json").url == "https://shop.example/notes.json"


def test_nothing_named_sits_at_the_unknown_origin() -> None:
    for body in (b'{"schema": "agent-actions/0.1"}', b'{"site": "not a host!"}', b"[[["):
        placed = place(body, "a.json")
        assert not placed.named and placed.url == f"{UNKNOWN_ORIGIN}/a.json"


def test_a_page_is_its_items_read_at_the_site_its_website_names() -> None:
    placed = place(PAGE, "index.html")
    assert placed.url == "https://page.example/index.html" and placed.document is not None
    assert json.loads(placed.document.body)[0]["url"] == "https://page.example/"
    assert place(b"<html><body>plain</body></html>", "x.html").document is None


def test_hosts_are_a_labels_and_confusable_ones_flagged() -> None:
    placed = place(b'{"schema": "agent-actions/0.1", "site": "P\xd0\x90YPAL.test"}', "a.json")
    assert placed.url == "https://xn--pypal-4ve.test/a.json"
    assert [d.code for d in placed.diagnostics] == ["confusable-host"]
    assert place(b"{}", "a.json", "b\u00fccher.example").diagnostics == ()  # Latin: fine
    assert origin_of("[::1]:8443") == "https://[::1]:8443"
    for bad in ("ftp://x.example", "", "https://"):
        with pytest.raises(ValueError):
            origin_of(bad)


@pytest.mark.parametrize(
    "origin", ["http://x.example:0", "x.example:00", "https://x.example:65536"]
)
def test_a_port_outside_1_to_65535_is_no_origin(origin: str) -> None:
    """Issue 25 item 10: ``:0`` was read as the scheme's default port."""
    with pytest.raises(ValueError, match="port that is not a number from 1 to 65535"):
        origin_of(origin)


def _business(kind: str) -> bytes:
    item = {
        "@context": "https://schema.org",
        "@type": kind,
        "name": "Crumb",
        "url": "https://crumb.example/",
        "potentialAction": {
            "@type": "OrderAction",
            "target": {"@type": "EntryPoint", "urlTemplate": "/order?item={item}"},
            "query-input": "required name=item",
        },
    }
    script = json.dumps(item).encode()
    return b'<html><head><script type="application/ld+json">' + script + b"</script></head></html>"


@pytest.mark.parametrize("kind", ["Bakery", "Hotel", "SomeBusinessSchemaOrgAddsLater"])
def test_a_business_page_names_its_site_by_its_url(kind: str) -> None:
    """A Bakery (a LocalBusiness kind), or any entity that offers actions, names its site."""
    placed = place(_business(kind), "bakery.html", page=True)
    assert placed.named and placed.site == "crumb.example", placed.url
