"""The one action model every format normalises into, and the types that cross stage arrows.

crawler --RawDocument--> formats.normalise --Manifest--> service.promote_site --> rows
rows --> index --> search --FindResult (registry.model.results)--> api / cli
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from registry.model.bounds import ID_CHARS

Effect = Literal["read", "write", "send", "spend", "delete"]
Auth = Literal["none", "api_key", "oauth2", "grant", "unknown"]
Severity = Literal["error", "warning", "info"]
EFFECTS: tuple[str, ...] = get_args(Effect)
AUTHS: tuple[str, ...] = get_args(Auth)


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Diagnostic(StrictModel):
    """Something a parser skipped, fixed or doubted; ``code`` is stable, ``path`` a JSON path."""

    code: str
    severity: Severity = "warning"
    path: str = "$"
    message: str
    hint: str | None = None


class RawDocument(StrictModel):
    """A fetched (or ingested) document, before normalisation.

    ``body`` is the bytes as served, except for HTML pages: ``registry.formats.html`` turns a page
    into its JSON-LD items serialised as JSON, with ``content_type`` ``application/ld+json``.
    """

    url: str
    body: bytes
    content_type: str = ""
    status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    fetched_at: datetime | None = None


class Action(StrictModel):
    name: str  # machine id: [A-Za-z0-9_-]{1,64}
    title: str
    description: str = ""  # for display: cut to sanitize.DESCRIPTION_MAX
    # For the index only, never shown: the whole description and what else the publisher wrote
    # of the action (summary, tags, examples), sanitised, up to sanitize.INDEX_TEXT_MAX, scored
    # in an index field of its own ("" when it would say no more than ``description``).
    about: str = Field(
        "",
        description=(
            "What the index reads beyond description: the publisher's whole text, sanitised "
            "(results show description only)"
        ),
    )
    type: str | None = None  # Schema.org Action type when known, e.g. "SearchAction"
    effect: Effect
    method: str | None = None
    endpoint: str | None = None  # absolute URL or RFC 6570 template
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] | None = None
    scope: str | None = None
    auth: Auth = "unknown"
    cost: dict[str, Any] | None = None
    same_origin: bool = True
    # The endpoint's owner is known to be the site's: same origin, the same registrable domain,
    # or the endpoint's host publishes a document naming the site (registry.store.reciprocal).
    verified: bool = True


class FlowStep(StrictModel):
    action: str  # the name of an action in the same manifest
    title: str | None = None
    bindings: dict[str, str] = Field(default_factory=dict)  # param -> "$input.x" / "$steps.N.path"


class Flow(StrictModel):
    name: str
    title: str
    description: str = ""
    effect: Effect
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    steps: list[FlowStep] = Field(default_factory=list)
    # What running it needs and costs, from its steps (registry.model.flow_terms)
    auth: Auth = "unknown"
    scope: str | None = None
    cost: dict[str, Any] | None = None


class Manifest(StrictModel):
    """What one document says a site offers, in the one action model."""

    site: str  # host, lower case, no port for default ports
    url: str  # the document's URL
    format: str  # e.g. "agent-actions", "schemaorg"
    site_name: str | None = None
    site_description: str | None = None
    # The site's ``about`` (see Action.about): what the publisher wrote of the whole site, in
    # every action's document of the site (as its name and description are).
    site_about: str | None = None
    actions: list[Action] = Field(default_factory=list)
    flows: list[Flow] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    # Documents this one points at that hold more of the site's actions (an OpenAPI behind an
    # agents.json, an api-catalog's service-desc, llms.txt "## Actions" links): the crawler
    # fetches them next and normalise() reads them through its ``resolve`` argument.
    references: list[str] = Field(default_factory=list)
    # Where the site's services around its actions live, by name (agent-actions' "endpoints":
    # receipts, refunds, revocations, negotiation), each an absolute URL.
    endpoints: dict[str, str] = Field(default_factory=dict, exclude_if=lambda found: not found)


def stable_id(site: str, format: str, key: str) -> str:
    """Hash of (site, format, key): the same action keeps its id across crawls. Its form (ID_CHARS
    hex digits) is what every door checks an id against (registry.model.bounds)."""
    digest = hashlib.sha256(f"{site}\x1f{format}\x1f{key}".encode()).hexdigest()
    return digest[:ID_CHARS]


class FetchFailure(StrictModel):
    """A document the crawler could not get. ``status`` is None for network-level failures."""

    url: str
    status: int | None = None
    code: str  # stable: "http-error", "not-found", "timeout", "network-error", "dns-error",
    #            "connection-refused", "blocked-address", "robots-disallowed",
    #            "robots-unavailable", "too-large", ...
    message: str = ""


class FirstPass(StrictModel):
    """A document normalised on its own while crawling, to learn what it references. The store
    reuses the manifest when the document asked to read none of the crawl's documents."""

    body_hash: str  # sha256 of the body it was read from
    asked: list[str] = Field(default_factory=list)  # every URL the normaliser asked to read
    manifest: Manifest


class SiteCrawl(StrictModel):
    """Everything one crawl learnt about one site: the unit the store promotes at once."""

    host: str
    origin: str  # scheme://host[:port] the site was crawled at
    documents: list[RawDocument] = Field(default_factory=list)
    not_modified: list[str] = Field(default_factory=list)  # URLs answered 304
    failures: list[FetchFailure] = Field(default_factory=list)
    first_pass: dict[str, FirstPass] = Field(default_factory=dict)  # by document URL
