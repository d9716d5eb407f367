"""Response models of the REST resources (sites, history, stats, the manifest export, prepare's
request): they exist for the OpenAPI document, the routes answer the dicts registry.store.lookup
makes. An action, a flow and a planned call are the registry's own models, which every door
shares (registry.model.public). ``extra="forbid"`` everywhere, so a key the code sends and the
document omits is a schema violation schemathesis reports."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from registry.model.liveness import ProbedEndpoint
from registry.model.public import DocumentRef
from registry.model.schemas import Auth, Diagnostic, Effect, StrictModel


class SiteItem(StrictModel):
    host: str
    origin: str
    name: str | None
    description: str | None
    version: int = Field(description="Grows by one each time the site's action set changes")
    updated_at: str = Field(
        description="When its action set last changed, else was first "
        "stored (ISO 8601, UTC): the list's order"
    )
    changed_at: str | None
    actions: int
    flows: int
    formats: list[str]


class SitePage(StrictModel):
    items: list[SiteItem]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last")
    resume_cursor: str | None = Field(
        description="Where a mirror resumes later to see only what changed after this page"
    )


class ActionBrief(StrictModel):
    id: str
    name: str
    title: str
    effect: Effect
    method: str | None
    endpoint: str | None


class FlowBrief(StrictModel):
    id: str
    name: str
    title: str
    effect: Effect


class DocumentInfo(DocumentRef):
    status: int
    diagnostics: list[Diagnostic]
    endpoints: dict[str, str] = Field(
        description="Where the site's receipts, refunds, revocations or negotiation live, "
        "by name, as the document says (agent-actions' endpoints); {} when it names none"
    )


class RunSummary(StrictModel):
    id: int
    kind: str
    status: str
    started_at: str | None
    finished_at: str | None
    targets: int = Field(description="How many targets the run was given")
    stats: dict[str, Any]
    site_errors: list[str] | None = Field(
        None, description="In a site's last crawl: the codes it recorded for that site"
    )


class SiteDetail(StrictModel):
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
        "had: GET /sites/{host}/history)"
    )
    actions: list[ActionBrief]
    flows: list[FlowBrief]
    endpoints: list[ProbedEndpoint] = Field(
        description="Its MCP servers, A2A agents and ARD registries, with what the last "
        "liveness probe of each found"
    )
    documents: list[DocumentInfo]
    last_crawl: RunSummary | None


class HistoryEntry(StrictModel):
    """One change of the site's action set (registry/store/history.py)."""

    id: int
    version: int = Field(description="The site's version this change produced")
    at: str = Field(description="ISO 8601, UTC")
    reason: Literal["crawl", "ingest", "tombstone", "robots", "removed", "probe"] = Field(
        description="tombstone: 404/410 over 72 h; robots: robots.txt now disallows it; "
        "removed: an operator removed the site; probe: a liveness probe read an MCP server's "
        "tools"
    )
    run_id: int | None = Field(description="The crawl run that made it, when known")
    added: list[str] = Field(description="Action names; flows as flow:NAME")
    removed: list[str]
    changed: dict[str, list[str]] = Field(description="Name -> the fields that changed")
    actions: int = Field(description="How many actions the site had after it")
    flows: int


class SiteHistoryPage(StrictModel):
    host: str
    removed_at: str | None = Field(description="Set while the site is removed")
    version: int
    items: list[HistoryEntry] = Field(description="Newest first")
    next_cursor: str | None = Field(description="The next (older) page's cursor; null on the last")


class Stats(StrictModel):
    sites: int
    actions: int
    flows: int
    documents: int
    documents_by_format: dict[str, int]
    actions_by_effect: dict[str, int]
    last_crawl: RunSummary | None


class ExportStep(StrictModel):
    model_config = ConfigDict(populate_by_name=True)
    action: str
    with_: dict[str, str] = Field(
        alias="with", description="Input bindings: `$input.x`, `$steps.N.path` (seed 002)"
    )
    title: str | None = None


class ExportFlow(StrictModel):
    name: str
    title: str
    description: str | None = None
    input: dict[str, Any]
    steps: list[ExportStep]


class ExportAction(StrictModel):
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


class ExportSite(StrictModel):
    url: str
    name: str | None = None
    description: str | None = None


class ExportManifest(StrictModel):
    """The site as one agent-actions/0.1 manifest (registry/formats/agent_actions.py)."""

    model_config = ConfigDict(populate_by_name=True)
    version: Literal["agent-actions/0.1"]
    site: ExportSite
    actions: list[ExportAction]
    flows: list[ExportFlow]


class PrepareRequest(StrictModel):
    input: dict[str, Any] = Field(
        default_factory=dict, description="The action's input, as its input_schema says"
    )
