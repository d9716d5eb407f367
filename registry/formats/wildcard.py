"""Wildcard agents.json 0.1 (``{"agentsJson": "0.1.0", "info", "sources", "flows"}``).

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

from registry.effects import effect_of_id, strongest
from registry.formats._common import Diagnostics, as_dict, as_list, diag, text, title_from
from registry.formats._openapi import is_openapi, operations
from registry.formats._references import References
from registry.sanitize import DESCRIPTION_MAX, TITLE_MAX, clean_schema, clean_text, safe_name
from registry.schemas import Action, Flow, FlowStep, Manifest

NAME = "wildcard-agents-json"
PATHS = ("/.well-known/agents.json",)
CROSS_HOST_REFERENCES = True  # sources are OpenAPI documents wherever they are published
MAX_FLOWS, MAX_STEPS, MAX_LINKS = 64, 32, 128
Key = tuple[str, str]  # (sourceId, operationId)


def matches(data: Any) -> bool:
    return isinstance(data, dict) and "agentsJson" in data


def to_manifest(data: dict[str, Any], url: str, site: str,
                refs: References | None = None) -> Manifest:
    refs = refs or References(url)
    diags: Diagnostics = []
    flows_raw = as_list(data.get("flows"))[:MAX_FLOWS]
    wanted = {_key(a) for flow in flows_raw for a in as_list(as_dict(flow).get("actions"))}
    actions = _resolve(data, wanted - {None}, url, refs, diags)
    flows = [f for i, raw in enumerate(flows_raw) if (f := _flow(raw, actions, f"$.flows[{i}]",
                                                                 diags))]
    if not flows:
        diag(diags, "no-valid-flows" if flows_raw else "missing-field", "$.flows",
             "no usable flow; nothing for agents to find", "error",
             "list the flows agents may run, each with an id and its actions")
    if not isinstance(data.get("sources"), list):
        diag(diags, "invalid-type", "$.sources", "sources must be a list of OpenAPI documents",
             hint='"sources": [{"id": "api", "path": "https://.../openapi.yaml"}]')
    info = as_dict(data.get("info"))
    return Manifest(site=site, url=url, format=NAME, actions=list(actions.values()), flows=flows,
                    site_name=clean_text(info.get("title"), TITLE_MAX) or None,
                    site_description=clean_text(info.get("description")) or None,
                    diagnostics=diags)


def _key(action: Any) -> Key | None:
    action = as_dict(action)
    source, op = action.get("sourceId"), action.get("operationId")
    return (source, op) if isinstance(source, str) and isinstance(op, str) else None


def _resolve(data: dict[str, Any], wanted: set[Key], url: str, refs: References,
             diags: Diagnostics) -> dict[Key, Action]:
    """The wanted operations, from each source's OpenAPI when available, else bare actions."""
    found: dict[Key, Action] = {}
    for index, source in enumerate(as_list(data.get("sources"))[:16]):
        source, path = as_dict(source), f"$.sources[{index}]"
        spec = refs.get(source.get("path"), f"{path}.path", diags)
        source_id = source.get("id")
        if spec is None or not is_openapi(spec):
            diag(diags, "unresolved-reference", f"{path}.path", "the OpenAPI source is not "
                 "available here; its operations are kept by name, without a method or "
                 "endpoint to call", "info")
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
    return Action(name=safe_name(operation_id), title=title_from(operation_id),
                  effect=effect_of_id(operation_id, prefix=source_id))


def _override(data: dict[str, Any], found: dict[Key, Action], diags: Diagnostics) -> None:
    """``overrides`` of an operation's summary or description; other fields are not shown to
    agents here, so overriding them changes nothing we keep."""
    fields = {"summary": ("title", TITLE_MAX), "description": ("description", DESCRIPTION_MAX)}
    for index, item in enumerate(as_list(data.get("overrides"))[:64]):
        item, path = as_dict(item), f"$.overrides[{index}]"
        key = (item.get("sourceId"), item.get("operationId"))
        target = fields.get(item.get("fieldPath")) if isinstance(item.get("fieldPath"),
                                                                 str) else None
        if target is None or not all(isinstance(k, str) for k in key) or key not in found:
            diag(diags, "override-ignored", path, "only summary or description of an "
                 "operation used by a flow can be overridden", "info")
            continue
        value = clean_text(item.get("value"), target[1])
        found[key] = found[key].model_copy(update={target[0]: value or getattr(
            found[key], target[0])})


def _flow(raw: Any, actions: dict[Key, Action], path: str, diags: Diagnostics) -> Flow | None:
    flow = as_dict(raw)
    flow_id = flow.get("id")
    if not isinstance(flow_id, str) or not flow_id.strip():
        diag(diags, "missing-field", f"{path}.id", "a flow needs an id; skipped")
        return None
    steps, ids = [], {}
    for index, item in enumerate(as_list(flow.get("actions"))[:MAX_STEPS]):
        key = _key(item)
        if key is None or key not in actions:
            diag(diags, "action-skipped", f"{path}.actions[{index}]",
                 "needs sourceId and operationId; flow skipped")
            return None
        ids[_text_or_none(as_dict(item).get("id"))] = len(steps)
        steps.append(FlowStep(action=actions[key].name))
    if not steps:
        diag(diags, "missing-field", f"{path}.actions", "a flow needs actions; skipped")
        return None
    _bind(flow, flow_id, ids, steps, path, diags)
    return Flow(name=safe_name(flow_id),
                title=text(flow.get("title"), TITLE_MAX, f"{path}.title", diags)
                or title_from(flow_id),
                description=text(flow.get("description"), DESCRIPTION_MAX,
                                 f"{path}.description", diags),
                effect=strongest([a.effect for a in actions.values()
                                  if a.name in {s.action for s in steps}]),
                input_schema=_fields(as_dict(flow.get("fields"))), steps=steps)


def _bind(flow: dict[str, Any], flow_id: str, ids: dict[Any, int], steps: list[FlowStep],
          path: str, diags: Diagnostics) -> None:
    """Links -> step bindings: the flow's fields are $input, earlier responses $steps.N."""
    for index, link in enumerate(as_list(flow.get("links"))[:MAX_LINKS]):
        origin, target = as_dict(as_dict(link).get("origin")), as_dict(as_dict(link).get("target"))
        step = ids.get(_text_or_none(target.get("actionId")))
        if step is not None and _whole_section(flow, flow_id, origin, target, steps[step]):
            continue
        param = _field(target.get("fieldPath"))
        source = _text_or_none(origin.get("actionId"))
        value = _field(origin.get("fieldPath"))
        if step is None or not param or not value or source is None or (
                source != flow_id and source not in ids):
            diag(diags, "bad-binding", f"{path}.links[{index}]",
                 "link does not join a flow field or earlier action to a later action", "info")
            continue
        if source != flow_id and ids[source] >= step:
            diag(diags, "bad-binding", f"{path}.links[{index}]", "links to a later action")
            continue
        ref = "$input." + value if source == flow_id else f"$steps.{ids[source]}.{value}"
        steps[step].bindings[param] = ref


def _whole_section(flow: dict[str, Any], flow_id: str, origin: dict[str, Any],
                   target: dict[str, Any], step: FlowStep) -> bool:
    """A link of the flow's whole ``parameters`` (or ``requestBody``) to an action's: every
    flow field passes through under its own name."""
    section = target.get("fieldPath")
    if origin.get("actionId") != flow_id or section not in ("parameters", "requestBody") or (
            origin.get("fieldPath") != section):
        return False
    if section == "requestBody":
        step.bindings["body"] = "$input.body"
        return True
    for item in as_list(as_dict(flow.get("fields")).get("parameters"))[:64]:
        if isinstance(as_dict(item).get("name"), str):
            name = safe_name(item["name"], "param")
            step.bindings[name] = f"$input.{name}"
    return True


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _field(field_path: Any) -> str:
    """"parameters.q" -> "q", "responses.success.data.0.id" -> "data.0.id"."""
    if not isinstance(field_path, str):
        return ""
    parts = field_path.split(".")[:16]
    skip = 2 if parts[:2] == ["responses", "success"] else 1
    return ".".join(safe_name(p, "field") for p in parts[skip:])


def _fields(fields: dict[str, Any]) -> dict[str, Any]:
    """A flow's ``fields.parameters`` list (and requestBody) as one input JSON Schema."""
    properties: dict[str, Any] = {}
    required = []
    for item in as_list(fields.get("parameters"))[:64]:
        item = as_dict(item)
        if not isinstance(item.get("name"), str):
            continue
        name = safe_name(item["name"], "param")
        properties[name] = {k: v for k, v in item.items() if k in ("type", "description",
                                                                      "enum", "default")}
        if item.get("required") is True:
            required.append(name)
    body = fields.get("requestBody")
    if isinstance(body, dict) and body:
        properties["body"] = body
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return clean_schema(schema)
