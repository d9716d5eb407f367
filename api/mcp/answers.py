"""What the MCP tools answer, as models, so each tool publishes its output schema: a /find page
(find_action; by site with group=site), an action or flow as GET /actions/{id} and GET
/flows/{id} read it (get_action), a site (get_site), a planned request (prepare_call).

Each is the registry's model of that resource (registry.model.results, registry.model.public),
subclassed where the tool says more: get_action answers an action or a flow in one shape. The
lookups (registry.store.lookup) and the planner (registry.calls.prepare) answer dicts; these
models only describe them. Keys they add later pass through (``extra="allow"``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from api import resources
from registry.model.public import Detail
from registry.model.public import PreparedCall as PlannedCall
from registry.model.results import FindResponse
from registry.model.tooldefs import definitions

OPEN = ConfigDict(extra="allow")


class FoundActions(FindResponse):
    """One page of find_action results, best first: each is what GET /find says of it, whether
    calling it needs approval included."""


def found(response: FindResponse, shape: str | None = None) -> FoundActions:
    """A /find page as find_action answers it: the same page; with ``shape``, its results as
    tool definitions in that shape (registry.model.tooldefs), as GET /find?as= gives them."""
    if shape is None:
        return FoundActions(**dict(response))
    hits = [hit for site in response.sites or [] for hit in site.actions] or response.results
    tools, ids = definitions([hit.model_dump(mode="json") for hit in hits], shape)
    return FoundActions.model_validate(
        {"query": response.query, "results": [], "tools": tools, "ids": ids}
        | ({"shortened": response.shortened.model_dump()} if response.shortened else {})
        | {"took_ms": response.took_ms}
    )


class FlowStepDetail(BaseModel):
    model_config = OPEN
    action: str = Field(description="The step's action, by name")
    title: str | None = None
    bindings: dict[str, Any] = Field(
        description="Its input: parameter -> $input.x or $steps.N.path"
    )
    resolved: ActionDetail | None = Field(description="That action (None: not stored)")


class ActionDetail(Detail):
    """An action or a flow: what find_action says of it, where it was read, and (a flow)
    its steps, each with its action."""

    model_config = OPEN
    same_origin: bool | None = Field(
        None, description="The endpoint is on the site or a subdomain of it (actions only)"
    )
    steps: list[FlowStepDetail] | None = Field(None, description="A flow's steps, in order")


class SiteDetail(resources.SiteDetail):
    """A site: what it is, its actions and flows (get_action gives each in full), the
    documents they were read from with what was wrong in them, and its last crawl. The
    shape of GET /sites/{host}."""

    model_config = OPEN


class PreparedCall(PlannedCall):
    """The exact HTTP request that calls the action with the input given. Not sent. The
    shape of POST /actions/{id}/prepare's answer."""

    model_config = OPEN
