"""Response models and request-body schemas that exist only for the OpenAPI document.

The handlers answer with JSON they build themselves (the lean /find body, a validator's
report); these say what that JSON is, so /openapi.json and /docs tell the truth.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from registry.model.schemas import Action, Diagnostic, Flow, StrictModel


class Health(BaseModel):
    status: Literal["ok"]
    actions: int  # actions in the index
    index_generation: int


class Ready(BaseModel):
    status: Literal["ready"]
    store: Literal["ok"]
    index_generation: int
    actions: int
    flows: int
    index_age_s: float | None  # since the index last caught up with the store (None: never)


class DocumentReport(StrictModel):
    """One document as agents will see it; ``url`` only in a report of a fetched URL."""

    url: str | None = None
    format: str
    actions: list[Action]
    flows: list[Flow]
    diagnostics: list[Diagnostic]


class SiteReport(StrictModel):
    """Every document found on a site (the URL form, given a site)."""

    site: str
    documents: list[DocumentReport]


def validate_body(url_pattern: str, max_url: int, max_bytes: int) -> dict[str, Any]:
    """POST /validate's request body for ``openapi_extra``: the handler reads the raw bytes
    (a manifest in any format, sniffed from content), so FastAPI cannot infer it."""
    url_form = {
        "title": "ValidateUrl",
        "type": "object",
        "required": ["url"],
        "additionalProperties": False,
        "properties": {
            "url": {
                "type": "string",
                "maxLength": max_url,
                "pattern": url_pattern,
                "description": "An http(s) URL, or a domain (its https "
                "homepage): fetched and validated",
            }
        },
    }
    # Any JSON but a lone "url" key: that is the URL form, whose url must be valid. (A lone
    # null "url" is read as a manifest, as the route reads it.)
    manifest = {
        "title": "Manifest",
        "not": {
            "type": "object",
            "required": ["url"],
            "maxProperties": 1,
            "properties": {"url": {"not": {"type": "null"}}},
        },
        "description": "A manifest in any format actiondex reads (the README lists "
        "them): read, not fetched",
    }
    # Bytes read as they are (format binary): an object "sent as" text/html is only its text.
    text = {"schema": {"type": "string", "format": "binary", "maxLength": max_bytes}}
    return {
        "requestBody": {
            "required": False,
            "description": (
                f"A manifest (at most {max_bytes} bytes; format sniffed from the content, sent as "
                "JSON, YAML, Markdown or HTML: a form or text/plain is refused, 415), or "
                '{"url": ...} to fetch a document or a site. Sent as application/json (or a '
                "+json type) the body must be JSON (else 422); any bytes, even a document that "
                "does not parse, go as application/octet-stream (or with no Content-Type), and "
                "the report names what is wrong with them"
            ),
            "content": {
                "application/json": {
                    "schema": {"anyOf": [url_form, manifest]},
                    "examples": {
                        "url": {"summary": "Fetch a site", "value": {"url": "shop.example"}},
                        "manifest": {
                            "summary": "A posted manifest",
                            "value": {
                                "version": "0.1",
                                "site": {"url": "https://shop.example"},
                                "actions": [
                                    {
                                        "name": "search",
                                        "title": "Search the shop",
                                        "effect": "read",
                                        "method": "GET",
                                        "endpoint": "/search{?q}",
                                    }
                                ],
                            },
                        },
                    },
                },
                "application/yaml": text,
                "text/markdown": text,
                "text/html": text,
                "application/octet-stream": text,
            },
        }
    }
