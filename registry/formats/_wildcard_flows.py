"""A Wildcard agents.json flow read into a Flow (a helper of wildcard, not a format): its
``actions`` become steps, its ``links`` step bindings (the flow's own fields as ``$input``,
earlier actions' responses as ``$steps.N``), its ``fields`` the flow's input schema.
"""

from __future__ import annotations

from typing import Any

from registry.formats._common import Diagnostics, as_dict, as_list, diag, text, title_from
from registry.model.effects import strongest
from registry.model.sanitize import DESCRIPTION_MAX, TITLE_MAX, clean_schema, safe_name
from registry.model.schemas import Action, Flow, FlowStep

MAX_STEPS, MAX_LINKS = 32, 128
Key = tuple[str, str]  # (sourceId, operationId)


def step_key(action: Any) -> Key | None:
    action = as_dict(action)
    source, op = action.get("sourceId"), action.get("operationId")
    return (source, op) if isinstance(source, str) and isinstance(op, str) else None


def read_flow(raw: Any, actions: dict[Key, Action], path: str, diags: Diagnostics) -> Flow | None:
    flow = as_dict(raw)
    flow_id = flow.get("id")
    if not isinstance(flow_id, str) or not flow_id.strip():
        diag(diags, "missing-field", f"{path}.id", "a flow needs an id; skipped")
        return None
    steps: list[FlowStep] = []
    ids: dict[str | None, int] = {}
    for index, item in enumerate(as_list(flow.get("actions"))[:MAX_STEPS]):
        key = step_key(item)
        if key is None or key not in actions:
            diag(
                diags,
                "action-skipped",
                f"{path}.actions[{index}]",
                "needs sourceId and operationId; flow skipped",
            )
            return None
        ids[_text_or_none(as_dict(item).get("id"))] = len(steps)
        steps.append(FlowStep(action=actions[key].name))
    if not steps:
        diag(diags, "missing-field", f"{path}.actions", "a flow needs actions; skipped")
        return None
    _bind(flow, flow_id, ids, steps, path, diags)
    return Flow(
        name=safe_name(flow_id),
        title=text(flow.get("title"), TITLE_MAX, f"{path}.title", diags) or title_from(flow_id),
        description=text(flow.get("description"), DESCRIPTION_MAX, f"{path}.description", diags),
        effect=strongest(
            [a.effect for a in actions.values() if a.name in {s.action for s in steps}]
        ),
        input_schema=_fields(as_dict(flow.get("fields"))),
        steps=steps,
    )


def _bind(
    flow: dict[str, Any],
    flow_id: str,
    ids: dict[str | None, int],
    steps: list[FlowStep],
    path: str,
    diags: Diagnostics,
) -> None:
    """Links -> step bindings: the flow's fields are $input, earlier responses $steps.N."""
    for index, link in enumerate(as_list(flow.get("links"))[:MAX_LINKS]):
        origin, target = as_dict(as_dict(link).get("origin")), as_dict(as_dict(link).get("target"))
        step = ids.get(_text_or_none(target.get("actionId")))
        if step is not None and _whole_section(flow, flow_id, origin, target, steps[step]):
            continue
        param = _field(target.get("fieldPath"))
        source = _text_or_none(origin.get("actionId"))
        value = _field(origin.get("fieldPath"))
        if (
            step is None
            or not param
            or not value
            or source is None
            or (source != flow_id and source not in ids)
        ):
            diag(
                diags,
                "bad-binding",
                f"{path}.links[{index}]",
                "link does not join a flow field or earlier action to a later action",
                "info",
            )
            continue
        if source != flow_id and ids[source] >= step:
            diag(diags, "bad-binding", f"{path}.links[{index}]", "links to a later action")
            continue
        ref = "$input." + value if source == flow_id else f"$steps.{ids[source]}.{value}"
        steps[step].bindings[param] = ref


def _whole_section(
    flow: dict[str, Any],
    flow_id: str,
    origin: dict[str, Any],
    target: dict[str, Any],
    step: FlowStep,
) -> bool:
    """A link of the flow's whole ``parameters`` (or ``requestBody``) to an action's: every
    flow field passes through under its own name."""
    section = target.get("fieldPath")
    if (
        origin.get("actionId") != flow_id
        or section not in ("parameters", "requestBody")
        or (origin.get("fieldPath") != section)
    ):
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
    """ "parameters.q" -> "q", "responses.success.data.0.id" -> "data.0.id"."""
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
        properties[name] = {
            k: v for k, v in item.items() if k in ("type", "description", "enum", "default")
        }
        if item.get("required") is True:
            required.append(name)
    body = fields.get("requestBody")
    if isinstance(body, dict) and body:
        properties["body"] = body
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return clean_schema(schema)
