"""Each document is normalised once per crawl: the crawler's first pass (to find references)
is the store's manifest unless the document can now read another of the crawl's documents."""

from __future__ import annotations

from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_alone, normalise_site
from registry.validate import validate_site
from tests.helpers.paths import FIXTURES

CASES = FIXTURES / "ai-plugin"
SITE = "tide-plugin.example"
PLUGIN = RawDocument(
    url=f"https://{SITE}/.well-known/ai-plugin.json", body=(CASES / "tide-plugin.json").read_bytes()
)
OPENAPI = RawDocument(
    url=f"https://{SITE}/openapi.yaml", body=(CASES / "_openapi.yaml").read_bytes()
)


def crawl(*docs: RawDocument, first_pass: bool) -> SiteCrawl:
    passes = {d.url: normalise_alone(d, SITE) for d in docs} if first_pass else {}
    return SiteCrawl(host=SITE, origin=f"https://{SITE}", documents=list(docs), first_pass=passes)


def test_a_first_pass_that_read_nothing_is_the_stored_manifest() -> None:
    first = crawl(OPENAPI, first_pass=True)
    update = normalise_site(first)
    assert update.documents[0].manifest is first.first_pass[OPENAPI.url].manifest
    assert (
        normalise_site(crawl(OPENAPI, first_pass=False)).documents[0].manifest
        == update.documents[0].manifest
    )


def test_a_document_that_can_now_read_its_reference_is_normalised_again() -> None:
    with_pass, without = (
        crawl(PLUGIN, OPENAPI, first_pass=True),
        crawl(PLUGIN, OPENAPI, first_pass=False),
    )
    assert with_pass.first_pass[PLUGIN.url].asked == [OPENAPI.url]
    plugin, openapi = normalise_site(with_pass).documents
    assert plugin.manifest is not with_pass.first_pass[PLUGIN.url].manifest
    assert len(plugin.manifest.actions) > 1  # the OpenAPI's operations, read this time
    assert openapi.read_by == PLUGIN.url and openapi.manifest.actions == []
    again = normalise_site(without).documents
    assert [(d.manifest, d.content_hash) for d in again] == [
        (d.manifest, d.content_hash) for d in (plugin, openapi)
    ]


def test_a_first_pass_of_other_bytes_is_not_reused() -> None:
    stale = crawl(OPENAPI, first_pass=True)
    changed = OPENAPI.model_copy(update={"body": OPENAPI.body.replace(b"tide", b"tidal")})
    update = normalise_site(stale.model_copy(update={"documents": [changed]}))
    assert update.documents[0].manifest is not stale.first_pass[OPENAPI.url].manifest
    assert "tidal" in update.documents[0].manifest.model_dump_json()


def test_the_validator_reports_an_ai_plugin_and_its_openapi_once() -> None:
    site = crawl(PLUGIN, OPENAPI, first_pass=False)
    report = validate_site(site)
    assert [d.url for d in report.documents] == [PLUGIN.url]
    names = [a.name for d in report.documents for a in d.actions]
    assert len(names) > 1 and len(names) == len(set(names))
    stored = [a.name for d in normalise_site(site).documents for a in d.manifest.actions]
    assert names == stored  # exactly what the store keeps, so what agents will see
