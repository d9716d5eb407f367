"""Wildcard agents.json 0.1 (``{"agentsJson": "0.1.0", "info", "sources", "flows"}``).

Also read without the ``agentsJson`` key, by its shape (``matches``): seed 001 prints it so.

Spec: https://github.com/wild-card-ai/agents-json (agentsJson.schema.json). Served at
``/.well-known/agents.json``. ``sources[]`` name OpenAPI documents (``path``); each flow lists
``actions`` (``sourceId`` + ``operationId``) and ``links`` that wire the flow's own fields and
earlier actions' responses into later actions' parameters. Every flow becomes one searchable
Flow; the operations it uses become actions, read from the OpenAPI source through ``refs``.
When a source is not available yet, an operation is kept as a bare action so the flow stays
searchable: its name, an effect read from the name, and no method or endpoint (agents cannot
call it until the source is read); the source is listed in references.
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import Diagnostics, as_dict, as_list, diag, title_from
from registry.formats._openapi import is_openapi, operations
from registry.formats._references import References
from registry.formats._wildcard_flows import Key, read_flow, step_key
from registry.model.effects import effect_of_id
from registry.model.sanitize import DESCRIPTION_MAX, TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Manifest

NAME = "wildcard-agents-json"
PATHS = ("/.well-known/agents.json",)
CROSS_HOST_REFERENCES = True  # sources are OpenAPI documents wherever they are published
MAX_FLOWS = 64


def matches(data: Any) -> bool:
    """The ``agentsJson`` version key, or the shape without it (the fragments Wildcard's docs
    print, and seed 001 as written): ``sources`` beside ``flows`` whose actions name an
    OpenAPI operation (``sourceId`` + ``operationId``)."""
    if not isinstance(data, dict):
        return False
    if "agentsJson" in data:
        return True
    return isinstance(data.get("sources"), list) and any(
        isinstance(action, dict) and {"sourceId", "operationId"} <= action.keys()
        for flow in as_list(data.get("flows"))[:MAX_FLOWS]
        for action in as_list(as_dict(flow).get("actions"))[:MAX_FLOWS]
    )


def to_manifest(
    data: dict[str, Any], url: str, site: str, refs: References | None = None
) -> Manifest:
    refs = refs or References(url)
    diags: Diagnostics = []
    flows_raw = as_list(data.get("flows"))[:MAX_FLOWS]
    wanted = {
        key
        for flow in flows_raw
        for a in as_list(as_dict(flow).get("actions"))
        if (key := step_key(a)) is not None
    }
    actions = _resolve(data, wanted, url, refs, diags)
    flows = [
        f
        for i, raw in enumerate(flows_raw)
        if (f := read_flow(raw, actions, f"$.flows[{i}]", diags))
    ]
    if not flows:
        diag(
            diags,
            "no-valid-flows" if flows_raw else "missing-field",
            "$.flows",
            "no usable flow; nothing for agents to find",
            "error",
            "list the flows agents may run, each with an id and its actions",
        )
    if not isinstance(data.get("sources"), list):
        diag(
            diags,
            "invalid-type",
            "$.sources",
            "sources must be a list of OpenAPI documents",
            hint='"sources": [{"id": "api", "path": "https://.../openapi.yaml"}]',
        )
    info = as_dict(data.get("info"))
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        actions=list(actions.values()),
        flows=flows,
        site_name=clean_text(info.get("title"), TITLE_MAX) or None,
        site_description=clean_text(info.get("description")) or None,
        diagnostics=diags,
    )


def _resolve(
    data: dict[str, Any], wanted: set[Key], url: str, refs: References, diags: Diagnostics
) -> dict[Key, Action]:
    """The wanted operations, from each source's OpenAPI when available, else bare actions."""
    found: dict[Key, Action] = {}
    for index, source in enumerate(as_list(data.get("sources"))[:16]):
        source, path = as_dict(source), f"$.sources[{index}]"
        spec = refs.get(source.get("path"), f"{path}.path", diags)
        source_id = source.get("id")
        if spec is None or not is_openapi(spec):
            diag(
                diags,
                "unresolved-reference",
                f"{path}.path",
                "the OpenAPI source is not "
                "available here; its operations are kept by name, without a method or "
                "endpoint to call",
                "info",
            )
            continue
        spec_url = refs.add(source.get("path")) or url
        ops = {op for sid, op in wanted if sid == source_id}
        for op_id, action in operations(spec, spec_url, diags, ops):
            found[(str(source_id), str(op_id))] = action
    for key in sorted(wanted - found.keys()):
        found[key] = _by_name(*key)
    _override(data, found, diags)
    return found


def _by_name(source_id: str, operation_id: str) -> Action:
    """An operation known only by its id, which Wildcard leads with the source's id
    ("giphy_get_gifs_search"): no method, no endpoint, the effect from the words after it."""
    return Action(
        name=safe_name(operation_id),
        title=title_from(operation_id),
        effect=effect_of_id(operation_id, prefix=source_id),
    )


def _override(data: dict[str, Any], found: dict[Key, Action], diags: Diagnostics) -> None:
    """``overrides`` of an operation's summary or description; other fields are not shown to
    agents here, so overriding them changes nothing we keep."""
    fields = {"summary": ("title", TITLE_MAX), "description": ("description", DESCRIPTION_MAX)}
    for index, item in enumerate(as_list(data.get("overrides"))[:64]):
        item, path = as_dict(item), f"$.overrides[{index}]"
        key = (item.get("sourceId"), item.get("operationId"))
        field_path = item.get("fieldPath")
        target = fields.get(field_path) if isinstance(field_path, str) else None
        if target is None or not all(isinstance(k, str) for k in key) or key not in found:
            diag(
                diags,
                "override-ignored",
                path,
                "only summary or description of an operation used by a flow can be overridden",
                "info",
            )
            continue
        value = clean_text(item.get("value"), target[1])
        found[key] = found[key].model_copy(
            update={target[0]: value or getattr(found[key], target[0])}
        )
