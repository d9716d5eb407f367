"""ARD names spelled one way (registry.model.ard_terms) and the ARD format's reading of them."""

from __future__ import annotations

import json

import pytest

from registry.formats import legacy_paths, normalise, sniff
from registry.model import ard_terms as terms
from registry.model.schemas import RawDocument


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("urn:air:acme.com:agent:assistant", "urn:air:acme.com:agent:assistant"),
        ("urn:ai:acme.com:agent:assistant", "urn:air:acme.com:agent:assistant"),
        ("URN:AIR:acme.com:server:weather", "urn:air:acme.com:server:weather"),
        ("urn:air:acme.com", None),
        ("https://acme.com/agent", None),
        ("orchard-weather", None),
        ("urn:air:acme.com:a b", None),
        (42, None),
    ],
)
def test_identifiers(written: object, expected: str | None) -> None:
    assert terms.identifier(written) == expected


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("application/a2a-agent-card+json", "application/a2a-agent-card+json"),
        ("Application/A2A-Agent-Card+JSON; charset=utf-8", "application/a2a-agent-card+json"),
        ("application/a2a-agent-card", "application/a2a-agent-card+json"),
        ("application/mcp-server+json", "application/mcp-server-card+json"),
        ("application/ai-catalog", "application/ai-catalog+json"),
        (
            'text/markdown;profile="urn:air:agent-skills"',
            'text/markdown; profile="urn:air:agent-skills"',
        ),
        ("not a type", None),
        (None, None),
    ],
)
def test_media_types(written: object, expected: str | None) -> None:
    assert terms.media_type(written) == expected


def test_terms_resolve_through_contexts() -> None:
    prefixes = terms.context_prefixes(
        [
            "https://agenticresourcediscovery.org/context/v1",
            {"okf": "https://okf.example/ns#", "tier": {"@id": "https://x.example/tier"}},
        ]
    )
    assert terms.term_iri("okf:taxonomy", prefixes) == "https://okf.example/ns#taxonomy"
    assert terms.term_iri("tier", prefixes) == "https://x.example/tier"
    assert terms.term_iri("tags", prefixes) == terms.ARD_NS + "tags"


def test_a_catalog_of_entries_alone_is_read() -> None:
    body = {
        "entries": [
            {
                "identifier": "urn:ai:shop.example:agent:helper",
                "displayName": "Helper",
                "mediaType": "Application/A2A-Agent-Card",
                "url": "/helper.json",
            }
        ]
    }
    doc = RawDocument(
        url="https://shop.example/.well-known/ard.json", body=json.dumps(body).encode()
    )
    assert sniff(doc) == "ard"
    manifest = normalise(doc)
    assert [a.name for a in manifest.actions] == ["helper"]
    assert not [d for d in manifest.diagnostics if d.code == "invalid-identifier"]
    assert (
        sniff(RawDocument(url="https://x.example/a.json", body=b'{"entries": [{"name": "x"}]}'))
        != "ard"
    )


def test_nested_catalogs_are_known_by_any_spelling() -> None:
    body = {
        "entries": [
            {
                "identifier": "urn:air:shop.example:catalog:more",
                "displayName": "More",
                "type": "application/ai-catalog",
                "data": {
                    "entries": [
                        {
                            "identifier": "urn:air:shop.example:agent:inner",
                            "displayName": "Inner",
                            "type": "x/y",
                            "url": "/inner.json",
                        }
                    ]
                },
            }
        ]
    }
    doc = RawDocument(
        url="https://shop.example/.well-known/ard.json", body=json.dumps(body).encode()
    )
    assert [a.name for a in normalise(doc).actions] == ["inner"]


def test_the_legacy_path_is_the_well_known_one_s_fallback() -> None:
    assert legacy_paths() == {"/.well-known/ard.json": "/.well-known/ai-catalog.json"}
