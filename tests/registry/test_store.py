"""The store's promises, on SQLite and PostgreSQL: atomic promotion, idempotent recrawl,
nothing lost on failure, removal only on sustained evidence."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document, FlowRow, Site
from registry.model.schemas import (
    Diagnostic,
    FetchFailure,
    Manifest,
    RawDocument,
    SiteCrawl,
)
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash, normalise_site
from registry.store.promotion import promote_site
from registry.store.rows import utcnow
from tests.helpers.paths import FIXTURES
from tests.helpers.promote import HOST, URL, WriteCounter, failure, manifest, names, update


def test_promote_new_site_stores_actions_and_flows(session: Session) -> None:
    result = promote_site(session, update(manifest("search", "add_to_cart", flows=True)))
    assert result.changed and result.actions == 2 and result.flows == 1
    site = session.scalars(select(Site)).one()
    assert (site.host, site.name, site.version) == (HOST, "Shop", 1)
    assert names(session) == ["add_to_cart", "search"]
    flow = session.scalars(select(FlowRow)).one()
    assert [s["action"] for s in flow.steps] == ["search", "add_to_cart"]


def test_unchanged_recrawl_writes_nothing(session: Session) -> None:
    promote_site(session, update(manifest("search", flows=True)))
    session.flush()
    counter = WriteCounter(session)
    try:
        result = promote_site(session, update(manifest("search", flows=True)))
        session.flush()
    finally:
        counter.close()
    assert not result.changed
    assert counter.writes == []
    assert session.scalars(select(Site)).one().version == 1


def test_changed_content_replaces_the_set_and_keeps_ids(session: Session) -> None:
    promote_site(session, update(manifest("search", "add_to_cart")))
    old_id = session.scalars(select(ActionRow.id).where(ActionRow.name == "search")).one()
    result = promote_site(session, update(manifest("search", "checkout")))
    assert result.changed and names(session) == ["checkout", "search"]
    assert session.scalars(select(ActionRow.id).where(ActionRow.name == "search")).one() == old_id
    assert session.scalars(select(Site)).one().version == 2


@pytest.mark.parametrize(
    "code,status",
    [("http-error", 503), ("timeout", None), ("too-large", 200), ("network-error", None)],
)
def test_failed_fetch_keeps_the_last_good_version(
    session: Session, code: str, status: int | None
) -> None:
    promote_site(session, update(manifest("search", "checkout")))
    result = promote_site(session, failure(code, status))
    assert not result.changed and result.errors == [code]
    assert names(session) == ["checkout", "search"]
    site = session.scalars(select(Site)).one()
    assert site.last_error and code in site.last_error and site.version == 1


def test_a_crawl_without_errors_clears_the_last_one(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    promote_site(session, failure("timeout"))
    assert session.scalars(select(Site)).one().last_error
    assert not promote_site(session, update(manifest("search"))).changed  # fine again
    site = session.scalars(select(Site)).one()
    assert site.last_error is None and site.last_error_at is None


def test_unparseable_document_keeps_the_last_good_version(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    broken = Manifest(
        site=HOST,
        url=URL,
        format="unknown",
        diagnostics=[Diagnostic(code="json-parse-error", severity="error", message="bad JSON")],
    )
    result = promote_site(session, update(broken, body=b"{not json"))
    assert not result.changed and result.errors == ["json-parse-error"]
    assert names(session) == ["search"]
    assert session.scalars(select(Document.content_hash)).one() != content_hash(b"{not json")


def test_removal_needs_three_404s_over_72_hours(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    start = utcnow()
    for hours in (0, 1, 2):  # three answers, but within hours: kept
        promote_site(session, failure("not-found", 404), now=start + timedelta(hours=hours))
    assert names(session) == ["search"]
    result = promote_site(session, failure("not-found", 404), now=start + timedelta(hours=73))
    assert result.changed and names(session) == []
    assert session.scalars(select(Site)).one().version == 2


def test_a_good_fetch_resets_the_404_evidence(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    start = utcnow()
    promote_site(session, failure("not-found", 404), now=start)
    promote_site(session, failure("not-found", 404), now=start + timedelta(hours=40))
    promote_site(session, update(manifest("search")), now=start + timedelta(hours=50))
    promote_site(session, failure("not-found", 410), now=start + timedelta(hours=80))
    assert names(session) == ["search"]


def test_promotion_is_all_or_nothing(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    promote_site(session, update(manifest("search", "checkout")))
    session.flush()

    def explode(*_args: object) -> list[FlowRow]:
        raise RuntimeError("crash after the old actions were deleted")

    monkeypatch.setattr("registry.store.promotion.flow_rows", explode)
    savepoint = session.begin_nested()  # stands for the edge's transaction
    with pytest.raises(RuntimeError):
        promote_site(session, update(manifest("other")))
    savepoint.rollback()
    assert names(session) == ["checkout", "search"]


def test_site_action_limit_cuts_with_a_diagnostic(session: Session) -> None:
    result = promote_site(session, update(manifest(*[f"a{i}" for i in range(12)])), max_actions=5)
    assert result.actions == 5
    diagnostics = session.scalars(select(Document.diagnostics)).one()
    assert [d["code"] for d in diagnostics] == ["too-many-actions"]


def test_not_found_for_an_unknown_document_writes_nothing(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    session.flush()
    counter = WriteCounter(session)
    try:
        other = f"https://{HOST}/.well-known/agents.json"
        promote_site(
            session,
            SiteUpdate(
                HOST,
                f"https://{HOST}",
                failures=[FetchFailure(url=other, status=404, code="not-found")],
            ),
        )
        session.flush()
    finally:
        counter.close()
    assert counter.writes == []


def plugin_crawl(openapi: bytes) -> SiteCrawl:
    fixtures = FIXTURES / "ai-plugin"
    site = "tide-plugin.example"
    return SiteCrawl(
        host=site,
        origin=f"https://{site}",
        documents=[
            RawDocument(
                url=f"https://{site}/.well-known/ai-plugin.json",
                body=(fixtures / "tide-plugin.json").read_bytes(),
                content_type="application/json",
            ),
            RawDocument(
                url=f"https://{site}/openapi.yaml", body=openapi, content_type="application/yaml"
            ),
        ],
    )


def test_referenced_documents_are_read_once_and_tracked(session: Session) -> None:
    spec = (FIXTURES / "ai-plugin" / "_openapi.yaml").read_bytes()
    update_ = normalise_site(plugin_crawl(spec))
    plugin, openapi = update_.documents
    assert len(plugin.manifest.actions) > 1  # the plugin plus its OpenAPI operations
    assert openapi.manifest.actions == []  # not listed a second time on its own
    assert "read-by-referrer" in [d.code for d in openapi.manifest.diagnostics]
    first = promote_site(session, update_)
    assert first.actions == len(plugin.manifest.actions)

    # Only the OpenAPI changes: the plugin's hash covers it, so the change is seen.
    changed = normalise_site(plugin_crawl(spec.replace(b"tide", b"tidal")))
    assert changed.documents[0].content_hash != plugin.content_hash
    assert promote_site(session, changed).changed


def test_two_sites_may_keep_the_same_cross_host_document(session: Session) -> None:
    shared = "https://api.elsewhere.example/openapi.json"
    for host in ("one.example", "two.example"):
        m = manifest("search").model_copy(update={"site": host, "url": shared})
        body = m.model_dump_json().encode()
        raw = RawDocument(url=shared, body=body, content_type="application/json")
        promote_site(
            session,
            SiteUpdate(host, f"https://{host}", [NormalisedDocument(raw, m, content_hash(body))]),
        )
    assert len(session.scalars(select(Document).where(Document.url == shared)).all()) == 2
