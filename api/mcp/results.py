"""What the MCP tools answer, as models, so each tool publishes its output schema: a /find result
plus whether a call needs approval (find_action; by site with group=site), an action or flow as
GET /actions/{id} reads it (get_action), a site (get_site), a planned request (prepare_call).

The lookups (registry.store.lookup) and the planner (registry.calls.prepare) answer dicts;
these models only describe them. Keys they add later pass through (``extra="allow"``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api import resources
from registry.model.effects import needs_approval
from registry.model.results import FindResponse, FindResult, Shortened, SourceRef
from registry.model.schemas import Auth, Effect

APPROVAL = ("True when calling it spends money, sends something in the person's name or "
            "deletes something (effect spend, send or delete): ask your person first")


class FoundAction(FindResult):
    """One action (or flow) found: how to call it, what it does, and what it needs."""

    needs_approval: bool = Field(description=APPROVAL)


def _absent(value: object) -> bool:
    return value is None


class FoundSite(BaseModel):
    """One site (group=site): its best actions, best first."""

    site: str
    score: float = Field(description="Its best action's score")
    actions: list[FoundAction]


class FoundActions(BaseModel):
    """One page of find_action results, best first."""

    query: str = Field(description="The query as it was searched")
    results: list[FoundAction] = Field(description="Empty with group=site (see `sites`)")
    sites: list[FoundSite] | None = Field(None, exclude_if=_absent, description=(
        "With group=site only: one entry per site, best first"))
    shortened: Shortened | None = Field(None, exclude_if=_absent, description=(
        "Present only when the request was searched by some of its words"))
    took_ms: float = Field(description="Time the search took, in milliseconds")


def _found(results: list[FindResult]) -> list[FoundAction]:
    return [FoundAction(**result.model_dump(), needs_approval=needs_approval(result.effect))
            for result in results]


def found(response: FindResponse) -> FoundActions:
    """A /find page as find_action answers it."""
    sites = None if response.sites is None else [
        FoundSite(site=site.site, score=site.score, actions=_found(site.actions))
        for site in response.sites]
    return FoundActions(query=response.query, results=_found(response.results), sites=sites,
                        shortened=response.shortened, took_ms=response.took_ms)


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class DocumentRef(Open):
    url: str
    format: str
    fetched_at: str | None = Field(description="When it was fetched (ISO 8601, UTC)")


class FlowStepDetail(Open):
    action: str = Field(description="The step's action, by name")
    title: str | None = None
    bindings: dict[str, Any] = Field(description="Its input: parameter -> $input.x or "
                                                 "$steps.N.path")
    resolved: ActionDetail | None = Field(description="That action (None: not stored)")


class ActionDetail(Open):
    """An action or a flow: what find_action says of it, where it was read, and (a flow)
    its steps, each with its action."""

    id: str
    kind: Literal["action", "flow"]
    site: str
    site_name: str | None = None
    name: str
    title: str
    description: str
    effect: Effect
    needs_approval: bool = Field(description=APPROVAL)
    type: str | None
    method: str | None
    endpoint: str | None = Field(description="Absolute URL or RFC 6570 template")
    auth: Auth
    scope: str | None
    cost: dict[str, Any] | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    same_origin: bool | None = Field(None, description="The endpoint is on the site's own "
                                                       "domain")
    source: SourceRef
    document: DocumentRef
    steps: list[FlowStepDetail] | None = Field(None, description="A flow's steps, in order")


class SiteDetail(resources.SiteDetail):
    """A site: what it is, its actions and flows (get_action gives each in full), the
    documents they were read from with what was wrong in them, and its last crawl. The
    shape of GET /sites/{host}."""

    model_config = ConfigDict(extra="allow")


class PreparedCall(resources.PreparedCall):
    """The exact HTTP request that calls the action with the input given. Not sent. The
    shape of POST /actions/{id}/prepare's answer."""

    model_config = ConfigDict(extra="allow")
    needs_approval: bool = Field(description=APPROVAL)
