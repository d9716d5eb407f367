"""What a search returns: ``FindResult`` (one action or flow found: its public fields,
registry.model.public.ActionFields, and its score), whose JSON is written once when the action
is stored (``result_payload``) and spliced into responses as it is, and ``FindResponse`` (one
page of them). The action model itself is registry.model.schemas.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from registry.model.effects import needs_approval
from registry.model.public import ActionFields, absent
from registry.model.schemas import FlowStep, StrictModel
from registry.model.tool_shapes import ToolDefinition


class ExplainPart(StrictModel):
    term: str
    field: str  # "all", "head", "params"; "vec" for what the meaning re-rank added, "site"
    # for what the site's other candidates added (registry.search.sites)
    weight: float  # 1 for the query's own words, less for an expansion
    score: float


class FindResult(ActionFields):
    """One search result. Its JSON is written once, when the action is stored
    (``result_payload``), and served as it is: only ``score`` and ``explain`` are added."""

    steps: list[FlowStep] | None = Field(None, exclude_if=absent)  # flows only
    score: float
    explain: list[ExplainPart] | None = Field(None, exclude_if=absent)


# The fields ``result_payload`` writes: all but what each search adds.
PAYLOAD_FIELDS = frozenset(FindResult.model_fields) - {"score", "explain", "liveness"}
# Spliced in when the index document is made (registry.index.documents): it changes with
# each probe, not with the action.
LIVE_FIELD = "liveness"
# Worked out by ``result_payload`` itself, from the effect.
DERIVED = frozenset({"needs_approval"})
# Stored as JSON text, spliced in as it is (no decode and encode per action).
PAYLOAD_JSON = {"cost": "null", "input_schema": "{}", "output_schema": "null"}
_DUMP = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def result_payload(values: dict[str, Any], json_texts: dict[str, str | None]) -> str:
    """A FindResult's JSON minus ``score`` and ``explain``: ``values`` by field name,
    ``json_texts`` the PAYLOAD_JSON fields as JSON text (None: absent); ``needs_approval``
    follows from the effect, the endpoint's scheme and whose it is
    (registry.model.effects.approval_reasons). Only a flow has ``steps``. Raises KeyError if
    any field is missing, so no caller can drop one."""
    plain = PAYLOAD_FIELDS - PAYLOAD_JSON.keys() - DERIVED
    wanted = plain if values.get("kind") == "flow" else plain - {"steps"}
    if wanted != values.keys() or json_texts.keys() != PAYLOAD_JSON.keys():
        missing = (wanted ^ values.keys()) | (PAYLOAD_JSON.keys() ^ json_texts.keys())
        raise KeyError(f"result payload fields: {sorted(missing)}")
    values = dict(values)
    values["needs_approval"] = needs_approval(
        values["effect"], values["endpoint"], values["origin"], values["verified"]
    )
    spliced = ",".join(
        f'"{name}":{text or PAYLOAD_JSON[name]}' for name, text in json_texts.items()
    )
    return f"{_DUMP(values)[:-1]},{spliced}}}"


class Shortened(StrictModel):
    """Said when a request had more words than one search scores: it was searched by
    its rarest."""

    terms: list[str] = Field(
        description="The words searched: the request's rarest in the index, in its own order"
    )
    dropped: int = Field(description="How many of the request's words were left out")


class SiteResult(StrictModel):
    """One site of a `group=site` page: its best actions and flows, best first."""

    site: str
    score: float = Field(description="Its best action's score")
    actions: list[FindResult]


class FindResponse(StrictModel):
    query: str
    results: list[FindResult] = Field(
        description="Best first; empty with group=site (see `sites`) or `as` (see `tools`)"
    )
    sites: list[SiteResult] | None = Field(
        None,
        exclude_if=absent,
        description=("With group=site only: one entry per site, best first"),
    )
    shortened: Shortened | None = Field(
        None,
        exclude_if=absent,
        description=("Present only when the request was searched by some of its words"),
    )
    tools: list[ToolDefinition] | None = Field(
        None,
        exclude_if=absent,
        description=(
            "With `as` only: each result as a tool definition in that shape, best first (with "
            "group=site, site by site)"
        ),
    )
    ids: dict[str, str] | None = Field(
        None,
        exclude_if=absent,
        description=(
            "With `as` only: each tool's name -> the id of its action or flow (for "
            "GET /actions/{id}, POST /actions/{id}/prepare)"
        ),
    )
    took_ms: float

    def public(self) -> dict[str, Any]:
        """The wire form shared by GET /find and `find --json`: only flows carry ``steps``."""
        return self.model_dump(mode="json")
