"""Response models of the REST resources (actions, flows, sites, stats, prepare): they exist for
the OpenAPI document, the routes answer the dicts registry.store.lookup and
registry.calls.prepare make. ``extra="forbid"`` everywhere, so a key the code sends and the
document omits is a schema violation schemathesis reports."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from registry.model.results import SourceRef
from registry.model.schemas import Auth, Diagnostic, Effect


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class DocumentRef(Strict):
    url: str
    format: str
    fetched_at: str | None = Field(description="ISO 8601, UTC")


class ActionDetail(Strict):
    """An action as GET /find returns it, plus where it was read and what calling it needs."""

    id: str
    kind: Literal["action"]
    site: str
    name: str
    title: str
    description: str
    effect: Effect
    type: str | None
    method: str | None
    endpoint: str | None = Field(description="Absolute URL or RFC 6570 template")
    auth: Auth
    scope: str | None
    cost: dict[str, Any] | None = Field(
        description="{amount, currency}, or {field, currency}: the amount is that input field")
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    source: SourceRef
    site_name: str | None
    same_origin: bool = Field(description="The endpoint is on the site or a subdomain of it")
    needs_approval: bool = Field(description="spend, send and delete: ask the person first")
    document: DocumentRef


class ResolvedStep(Strict):
    action: str = Field(description="The step's action, by name on the same site")
    title: str | None
    bindings: dict[str, str] = Field(
        description="Parameter -> $input.<field> or $steps.<N>.<path>")
    resolved: ActionDetail | None = Field(description="The action; null if it is not stored")


class FlowDetail(Strict):
    id: str
    kind: Literal["flow"]
    site: str
    name: str
    title: str
    description: str
    effect: Effect
    type: None
    method: None
    endpoint: None
    auth: Auth
    scope: None
    cost: None
    input_schema: dict[str, Any]
    output_schema: None
    source: SourceRef
    site_name: str | None
    needs_approval: bool
    document: DocumentRef
    steps: list[ResolvedStep]


class SiteItem(Strict):
    host: str
    origin: str
    name: str | None
    description: str | None
    version: int = Field(description="Grows by one each time the site's action set changes")
    updated_at: str = Field(description="When its action set last changed, else was first "
                                        "stored (ISO 8601, UTC): the list's order")
    changed_at: str | None
    actions: int
    flows: int
    formats: list[str]


class SitePage(Strict):
    items: list[SiteItem]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last")
    resume_cursor: str | None = Field(
        description="Where a mirror resumes later to see only what changed after this page")


class ActionBrief(Strict):
    id: str
    name: str
    title: str
    effect: Effect
    method: str | None
    endpoint: str | None


class FlowBrief(Strict):
    id: str
    name: str
    title: str
    effect: Effect


class DocumentInfo(DocumentRef):
    status: int
    diagnostics: list[Diagnostic]


class RunSummary(Strict):
    id: int
    kind: str
    status: str
    started_at: str | None
    finished_at: str | None
    targets: int = Field(description="How many targets the run was given")
    stats: dict[str, Any]
    site_errors: list[str] | None = Field(
        None, description="In a site's last crawl: the codes it recorded for that site")


class SiteDetail(Strict):
    host: str
    origin: str
    name: str | None
    description: str | None
    version: int
    changed_at: str | None
    last_error: str | None
    last_error_at: str | None
    removed_at: str | None = Field(
        description="Set while an operator has removed the site (its history keeps what it "
                    "had: GET /sites/{host}/history)")
    actions: list[ActionBrief]
    flows: list[FlowBrief]
    documents: list[DocumentInfo]
    last_crawl: RunSummary | None


class HistoryEntry(Strict):
    """One change of the site's action set (registry/store/history.py)."""

    id: int
    version: int = Field(description="The site's version this change produced")
    at: str = Field(description="ISO 8601, UTC")
    reason: Literal["crawl", "ingest", "tombstone", "robots", "removed"] = Field(
        description="tombstone: 404/410 over 72 h; robots: robots.txt now disallows it; "
                    "removed: an operator removed the site")
    run_id: int | None = Field(description="The crawl run that made it, when known")
    added: list[str] = Field(description="Action names; flows as flow:NAME")
    removed: list[str]
    changed: dict[str, list[str]] = Field(description="Name -> the fields that changed")
    actions: int = Field(description="How many actions the site had after it")
    flows: int


class SiteHistoryPage(Strict):
    host: str
    removed_at: str | None = Field(description="Set while the site is removed")
    version: int
    items: list[HistoryEntry] = Field(description="Newest first")
    next_cursor: str | None = Field(description="The next (older) page's cursor; null on "
                                                "the last")


class Stats(Strict):
    sites: int
    actions: int
    flows: int
    documents: int
    documents_by_format: dict[str, int]
    actions_by_effect: dict[str, int]
    last_crawl: RunSummary | None


class ExportStep(Strict):
    action: str
    bind: dict[str, str]
    title: str | None = None


class ExportFlow(Strict):
    name: str
    title: str
    description: str | None = None
    input: dict[str, Any]
    steps: list[ExportStep]


class ExportAction(Strict):
    name: str
    title: str
    description: str | None = None
    effect: Effect
    auth: Auth
    method: str | None = None
    endpoint: str | None = None
    scope: str | None = None
    cost: dict[str, Any] | None = None
    input: dict[str, Any] | None = None
    output: dict[str, Any] | None = None


class ExportSite(Strict):
    url: str
    name: str | None = None
    description: str | None = None


class ExportManifest(Strict):
    """The site as one agent-actions/0.1 manifest (registry/formats/agent_actions.py)."""

    schema_: Literal["agent-actions/0.1"] = Field(alias="schema")
    site: ExportSite
    actions: list[ExportAction]
    flows: list[ExportFlow]


class PrepareRequest(Strict):
    input: dict[str, Any] = Field(
        default_factory=dict, description="The action's input, as its input_schema says")


class PreparedCall(Strict):
    """The request to send; nothing was sent."""

    method: str
    url: str
    headers: dict[str, str] = Field(description="Content-Type and any header parameters; "
                                                "credentials are the caller's to add")
    body: str | None = Field(description="The exact body text (JSON or a form); null: none")
    needs_approval: bool = Field(description="spend, send and delete: ask the person first")
    effect: Effect
    cost: dict[str, Any] | None = Field(description="A cost by field has its amount resolved")
    scope: str | None
    auth: Auth
