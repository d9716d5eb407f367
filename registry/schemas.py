"""The one action model every format normalises into, and the types that cross stage arrows.

    crawler --RawDocument--> formats.normalise --Manifest--> service.promote_site --> rows
    rows --> index --> search --FindResult--> api / cli
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Effect = Literal["read", "write", "send", "spend", "delete"]
Auth = Literal["none", "api_key", "oauth2", "grant", "unknown"]
Severity = Literal["error", "warning", "info"]
EFFECTS: tuple[str, ...] = get_args(Effect)
AUTHS: tuple[str, ...] = get_args(Auth)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Diagnostic(_Model):
    """Something a parser skipped, fixed or doubted; ``code`` is stable, ``path`` a JSON path."""

    code: str
    severity: Severity = "warning"
    path: str = "$"
    message: str
    hint: str | None = None


class RawDocument(_Model):
    """A fetched (or ingested) document, before normalisation.

    ``body`` is the bytes as served, except for HTML pages: ``registry.pages`` turns a page
    into its JSON-LD items serialised as JSON, with ``content_type`` ``application/ld+json``.
    """

    url: str
    body: bytes
    content_type: str = ""
    status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    fetched_at: datetime | None = None


class Action(_Model):
    name: str  # machine id: [A-Za-z0-9_-]{1,64}
    title: str
    description: str = ""
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


class FlowStep(_Model):
    action: str  # the name of an action in the same manifest
    title: str | None = None
    bindings: dict[str, str] = Field(default_factory=dict)  # param -> "$input.x" / "$steps.N.path"


class Flow(_Model):
    name: str
    title: str
    description: str = ""
    effect: Effect
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    steps: list[FlowStep] = Field(default_factory=list)


class Manifest(_Model):
    """What one document says a site offers, in the one action model."""

    site: str  # host, lower case, no port for default ports
    url: str  # the document's URL
    format: str  # e.g. "agent-actions", "schemaorg"
    site_name: str | None = None
    site_description: str | None = None
    actions: list[Action] = Field(default_factory=list)
    flows: list[Flow] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    # Documents this one points at that hold more of the site's actions (an OpenAPI behind an
    # agents.json, an api-catalog's service-desc, llms.txt "## Actions" links): the crawler
    # fetches them next and normalise() reads them through its ``resolve`` argument.
    references: list[str] = Field(default_factory=list)


class SourceRef(_Model):
    url: str
    format: str


def _absent(value: object) -> bool:
    return value is None


class ExplainPart(_Model):
    term: str
    field: str  # "all", "head", "params"; "vec" for what the meaning re-rank added
    weight: float  # 1 for the query's own words, less for an expansion
    score: float


class FindResult(_Model):
    """One search result. Its JSON is written once, when the action is stored
    (``result_payload``), and served as it is: only ``score`` and ``explain`` are added."""

    id: str
    kind: Literal["action", "flow"]
    site: str
    name: str
    title: str
    description: str
    effect: Effect
    type: str | None
    method: str | None
    endpoint: str | None
    auth: Auth  # what calling it needs; a flow's is "unknown" (see its steps' actions)
    scope: str | None
    cost: dict[str, Any] | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    steps: list[FlowStep] | None = Field(None, exclude_if=_absent)  # flows only
    source: SourceRef
    score: float
    explain: list[ExplainPart] | None = Field(None, exclude_if=_absent)


# The fields ``result_payload`` writes: all but what each search adds.
PAYLOAD_FIELDS = frozenset(FindResult.model_fields) - {"score", "explain"}
# Stored as JSON text, spliced in as it is (no decode and encode per action).
PAYLOAD_JSON = {"cost": "null", "input_schema": "{}", "output_schema": "null"}
_DUMP = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def result_payload(values: dict[str, Any], json_texts: dict[str, str | None]) -> str:
    """A FindResult's JSON minus ``score`` and ``explain``: ``values`` by field name,
    ``json_texts`` the PAYLOAD_JSON fields as JSON text (None: absent). Only a flow has
    ``steps``. Raises KeyError if any field is missing, so no caller can drop one."""
    plain = PAYLOAD_FIELDS - PAYLOAD_JSON.keys()
    wanted = plain if values.get("kind") == "flow" else plain - {"steps"}
    if wanted != values.keys() or json_texts.keys() != PAYLOAD_JSON.keys():
        missing = (wanted ^ values.keys()) | (PAYLOAD_JSON.keys() ^ json_texts.keys())
        raise KeyError(f"result payload fields: {sorted(missing)}")
    spliced = ",".join(f'"{name}":{text or PAYLOAD_JSON[name]}'
                       for name, text in json_texts.items())
    return f"{_DUMP(values)[:-1]},{spliced}}}"


class FindResponse(_Model):
    query: str
    results: list[FindResult]
    took_ms: float

    def public(self) -> dict[str, Any]:
        """The wire form shared by GET /find and `find --json`: only flows carry ``steps``."""
        return self.model_dump(mode="json")


def stable_id(site: str, format: str, key: str) -> str:
    """Hash of (site, format, key): the same action keeps its id across crawls."""
    digest = hashlib.sha256(f"{site}\x1f{format}\x1f{key}".encode()).hexdigest()
    return digest[:24]


class FetchFailure(_Model):
    """A document the crawler could not get. ``status`` is None for network-level failures."""

    url: str
    status: int | None = None
    code: str  # stable: "http-error", "not-found", "timeout", "network-error", "dns-error",
    #            "blocked-address", "robots-disallowed", "robots-unavailable", "too-large", ...
    message: str = ""


class FirstPass(_Model):
    """A document normalised on its own while crawling, to learn what it references. The store
    reuses the manifest when the document asked to read none of the crawl's documents."""

    body_hash: str  # sha256 of the body it was read from
    asked: list[str] = Field(default_factory=list)  # every URL the normaliser asked to read
    manifest: Manifest


class SiteCrawl(_Model):
    """Everything one crawl learnt about one site: the unit the store promotes at once."""

    host: str
    origin: str  # scheme://host[:port] the site was crawled at
    documents: list[RawDocument] = Field(default_factory=list)
    not_modified: list[str] = Field(default_factory=list)  # URLs answered 304
    failures: list[FetchFailure] = Field(default_factory=list)
    first_pass: dict[str, FirstPass] = Field(default_factory=dict)  # by document URL
