"""registry.validate: the reports the validator gives a site owner, framework-free (the
command is tested in tests/actiondex/test_validate_cli.py, POST /validate in tests/api/)."""

from __future__ import annotations

import json
import subprocess
import sys

from registry.model.effects import needs_approval
from registry.model.schemas import FetchFailure, RawDocument, SiteCrawl
from registry.placement import place
from registry.validate import validate_document, validate_placed, validate_site
from tests.helpers.validate import FILES, REPORT_KEYS, codes

DIAGNOSTIC_KEYS = {"code", "severity", "path", "message", "hint"}


def test_report_is_the_normalised_manifest_with_hints() -> None:
    body = (FILES / "shop.json").read_bytes()
    report = validate_document(RawDocument(url="https://penpaper.example/shop.json", body=body))
    public = report.public()
    assert set(public) == REPORT_KEYS and report.ok
    assert [a["name"] for a in public["actions"]] == ["search_pens", "buy_pen"]
    assert [s["action"] for s in public["flows"][0]["steps"]] == ["search_pens", "buy_pen"]
    [cross] = [d for d in public["diagnostics"] if d["code"] == "cross-origin-endpoint"]
    assert set(cross) == DIAGNOSTIC_KEYS and cross["hint"] and "buy_pen" in cross["path"]


def test_broken_document_is_not_ok() -> None:
    report = validate_document(
        RawDocument(url="https://x.example/a.json", body=(FILES / "broken.json").read_bytes())
    )
    assert not report.ok and report.format == "unknown"
    assert codes(report.public()) == {"json-parse-error": "error"}


def test_site_report_turns_fetch_failures_into_diagnostics() -> None:
    good = RawDocument(
        url="https://penpaper.example/.well-known/agent-actions.json",
        body=(FILES / "shop.json").read_bytes(),
    )
    failures = [
        FetchFailure(
            url="https://penpaper.example/.well-known/agents.json",
            code="robots-disallowed",
            message="disallowed by robots.txt",
        ),
        FetchFailure(
            url="https://penpaper.example/llms.txt",
            status=404,
            code="not-found",
            message="HTTP 404",
        ),
        FetchFailure(
            url="https://penpaper.example/.well-known/ai-plugin.json",
            status=503,
            code="http-error",
            message="HTTP 503",
        ),
    ]
    crawl = SiteCrawl(
        host="penpaper.example",
        origin="https://penpaper.example",
        documents=[good],
        failures=failures,
    )
    report = validate_site(crawl).public()
    by_url = {d["url"].rsplit("/", 1)[-1]: codes(d) for d in report["documents"]}
    assert by_url == {
        "agent-actions.json": {"cross-origin-endpoint": "warning"},
        "agents.json": {"robots-disallowed": "warning"},
        "ai-plugin.json": {"http-error": "error"},
    }  # a 404 is just "absent"


def test_site_with_nothing_for_agents_is_an_error() -> None:
    report = validate_site(SiteCrawl(host="empty.example", origin="https://empty.example"))
    assert not report.ok and codes(report.documents[0].public()) == {"no-actions": "error"}


def test_registry_validate_is_framework_free() -> None:
    code = (
        "import sys, registry.validate; "
        "sys.exit(bool({'scrapy', 'fastapi', 'twisted'} & set(sys.modules)))"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def _catalog(host: dict[str, str]) -> bytes:
    entry = {
        "identifier": "urn:air:cider.example:agent:press",
        "displayName": "Cider press agent",
        "type": "application/a2a-agent-card+json",
        "url": "https://cider.example/.well-known/agent-card.json",
    }
    return json.dumps({"specVersion": "1.0", "host": host, "entries": [entry]}).encode()


def test_an_ard_catalog_is_placed_on_the_host_it_names() -> None:
    """Issue 21: without --origin, `validate ard-catalog.json` said "publisher cider.example
    is not the hosting site unknown.invalid" though host.identifier names it."""
    for host in (
        {"identifier": "cider.example"},
        {"identifier": "did:web:cider.example"},
        {"identifier": "https://cider.example/"},
    ):
        placed = place(_catalog(host), "ard-catalog.json")
        assert placed.named and placed.site == "cider.example", host
        report = validate_placed(placed)
        assert [a.name for a in report.actions] == ["press"], host
        assert "unknown.invalid" not in json.dumps(report.public()), host


def test_a_document_without_a_site_never_shows_the_placeholder() -> None:
    """Issue 21: POST /validate without a site showed endpoints like https://unknown.invalid/a."""
    body = json.dumps(
        {
            "schema": "agent-actions/0.1",
            "actions": [
                {"name": "a", "title": "A", "method": "GET", "path": "/a", "effect": "read"},
                {"name": "b", "title": "B", "method": "GET", "endpoint": "https://api.x.example/b"},
            ],
        }
    ).encode()
    placed = place(body, "agent-actions.json")
    assert not placed.named
    public = validate_placed(placed).public()
    assert "unknown.invalid" not in json.dumps(public)
    assert [a["endpoint"] for a in public["actions"]] == ["/a", "https://api.x.example/b"]
    assert "site-unknown" in codes(public)


def test_a_post_declared_read_is_stored_as_the_stronger_effect() -> None:
    """Issue 21: a POST declared `"effect": "read"` was stored as read, needs_approval false.
    The stronger of declared and inferred wins; the validator's warning stays."""
    body = json.dumps(
        {
            "schema": "agent-actions/0.1",
            "site": "mail.example",
            "actions": [
                {"name": "send_invoice", "title": "Send", "method": "POST", "effect": "read"},
                {"name": "save_note", "title": "Save", "method": "PUT", "effect": "read"},
                {"name": "get_note", "title": "Get", "method": "GET", "effect": "read"},
            ],
        }
    ).encode()
    report = validate_placed(place(body, "agent-actions.json")).public()
    effects = {a["name"]: (a["effect"], needs_approval(a["effect"])) for a in report["actions"]}
    assert effects == {
        "send_invoice": ("send", True),
        "save_note": ("write", False),
        "get_note": ("read", False),
    }
    assert codes(report)["effect-mismatch"] == "warning"
