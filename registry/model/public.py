"""The public shape of an action or a flow, said once. ``ActionFields`` is what every door
(GET /find, GET /actions/{id}, GET /flows/{id}, the MCP tools, `actiondex find --json`) says of
one; ``FindResult`` (registry.model.results) adds what a search adds (its score), and
``ActionDetail`` and ``FlowDetail`` what a lookup adds (registry.store.lookup: where it was
read, its site's name; an action whether it stays on the site, a flow its steps resolved).
``PreparedCall`` is what the planner answers (registry.calls.prepare).

A door that needs more subclasses these (api/mcp/answers.py); tests/test_architecture_shapes.py
fails if a door writes the fields out again. The models describe the dicts the store and the
planner make (the REST routes answer those dicts as they are) and publish their schemas."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from registry.model.liveness import Liveness
from registry.model.schemas import Auth, Effect, StrictModel

APPROVAL = (
    "True when calling it spends money, sends something in the person's name or "
    "deletes something (effect spend, send or delete), or when its endpoint is not https or "
    "is on another domain not verified to be the site's: ask your person first"
)
ORIGIN = (
    "Whose endpoint it is: `same`, on the site or a subdomain of it; `cross`, on another "
    "host (see `verified`). A flow's is `same`: each step's action says its own"
)
VERIFIED = (
    "The endpoint's owner is known to be the site's: it is on the site's own host, on the "
    "same registrable domain, or its host publishes a document (an ARD catalog, an agent "
    "card, an OpenAPI servers entry, an API catalog link) that names the site. An unverified "
    "cross-origin call needs the person's approval"
)
COST = (
    "{amount, currency}, or {field, currency}: the amount is that input field; a flow over "
    "several costly steps: {steps: [{step, amount or field, currency}]}"
)


def absent(value: object) -> bool:
    """For ``exclude_if``: a field that is None is left out of the JSON."""
    return value is None


class SourceRef(StrictModel):
    url: str
    format: str


class ActionFields(StrictModel):
    """An action (or a flow) as every door shows it: what it does, how to call it, what
    calling it needs and costs, what it returns, and where it was read."""

    id: str
    kind: Literal["action", "flow"]
    site: str
    name: str
    title: str
    description: str
    effect: Effect
    needs_approval: bool = Field(description=APPROVAL)  # registry.model.effects.needs_approval
    type: str | None
    method: str | None
    endpoint: str | None = Field(description="Absolute URL or RFC 6570 template")
    origin: Literal["same", "cross"] = Field(description=ORIGIN)
    verified: bool = Field(description=VERIFIED)
    auth: Auth = Field(
        description="What calling it needs; a flow's is what its steps' actions need"
    )
    scope: str | None = Field(description="The grant scope it needs; a flow's, its steps'")
    cost: dict[str, Any] | None = Field(description=COST)
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    source: SourceRef
    liveness: Liveness | None = Field(
        None,
        exclude_if=absent,
        description="What the last liveness probe of its endpoint found (MCP servers, A2A "
        "agents, ARD registries: their read-only handshake); absent: never probed",
    )


class DocumentRef(StrictModel):
    url: str
    format: str
    fetched_at: str | None = Field(description="ISO 8601, UTC")


class Detail(ActionFields):
    """What a lookup adds to an action or a flow: its site's name and the document it was
    read from."""

    site_name: str | None
    document: DocumentRef


class ActionDetail(Detail):
    """An action as GET /find returns it, plus where it was read and whether its endpoint
    stays on the site."""

    kind: Literal["action"]
    same_origin: bool = Field(description="The endpoint is on the site or a subdomain of it")


class ResolvedStep(StrictModel):
    action: str = Field(description="The step's action, by name on the same site")
    title: str | None
    bindings: dict[str, str] = Field(description="Parameter -> $input.<field> or $steps.<N>.<path>")
    resolved: ActionDetail | None = Field(description="The action; null if it is not stored")


class FlowDetail(Detail):
    """A flow: nothing of its own to call (each step is an action), its steps in order, each
    with its action resolved; its auth, scope and cost are its steps'."""

    kind: Literal["flow"]
    type: None
    method: None
    endpoint: None
    output_schema: None
    steps: list[ResolvedStep]


class PreparedCall(StrictModel):
    """The request to send; nothing was sent."""

    method: str
    url: str
    headers: dict[str, str] = Field(
        description="Content-Type and any header parameters; credentials are the caller's to add"
    )
    body: str | None = Field(description="The exact body text (JSON or a form); null: none")
    needs_approval: bool = Field(description=APPROVAL)
    approval_reasons: list[str] = Field(
        description="Why it needs approval, each in words to show the person; empty: it does not"
    )
    effect: Effect
    cost: dict[str, Any] | None = Field(description="A cost by field has its amount resolved")
    scope: str | None
    auth: Auth
