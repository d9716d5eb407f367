"""Flows of the agents.json "flows/steps" variant (a helper of agents_json, not a format).

    {"source": {"type": "openapi", "url": ".../openapi.json"},
     "flows": [{"name", "description", "steps": [
         {"operationId": "register", "parameters": {"body": {"email": "$user.email"}},
          "outputs": {"api_key": "data.api_key"}},
         {"operationId": "create_schedule",
          "parameters": {"headers": {"X-API-Key": "$steps.register.outputs.api_key"}}}]}]}

``$user.x`` becomes the flow input ``$input.x``; ``$steps.<operationId>.outputs.<name>`` the
earlier step's result path ``$steps.<N>.<outputs[name]>``. Operations come from the source
OpenAPI when ``refs`` has it, else they are kept by name.
"""

from __future__ import annotations

import re
from typing import Any

from registry.formats._common import Diagnostics, as_dict, as_list, diag, title_from
from registry.formats._openapi import is_openapi, operations
from registry.formats._references import References
from registry.model.effects import infer_effect, strongest
from registry.model.sanitize import DESCRIPTION_MAX, TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Flow, FlowStep

MAX_FLOWS, MAX_STEPS = 64, 32
_USER = re.compile(r"\$user\.([A-Za-z0-9_-]{1,64})")
_STEP = re.compile(r"\$steps\.([A-Za-z0-9_-]{1,64})\.outputs\.([A-Za-z0-9_-]{1,64})")


def flows(
    data: dict[str, Any], url: str, refs: References, diags: Diagnostics
) -> tuple[list[Flow], list[Action]]:
    raw_flows = [as_dict(f) for f in as_list(data.get("flows"))[:MAX_FLOWS]]
    operation_ids = [
        as_dict(s).get("operationId")
        for f in raw_flows
        for s in as_list(f.get("steps"))[:MAX_STEPS]
    ]
    wanted = {op for op in operation_ids if isinstance(op, str)}
    if not wanted:
        return [], []
    actions = _operations(data, wanted, url, refs, diags)
    found = [
        f for i, raw in enumerate(raw_flows) if (f := _flow(raw, actions, f"$.flows[{i}]", diags))
    ]
    return found, list(actions.values())


def _operations(
    data: dict[str, Any], wanted: set[str], url: str, refs: References, diags: Diagnostics
) -> dict[str, Action]:
    source = as_dict(data.get("source"))
    spec = refs.get(source.get("url"), "$.source.url", diags) if source else None
    found: dict[str, Action] = {}
    if is_openapi(spec):
        spec_url = refs.add(source.get("url")) or url
        found = {str(op): a for op, a in operations(spec, spec_url, diags, wanted)}
    elif source:
        diag(
            diags,
            "unresolved-reference",
            "$.source.url",
            "the OpenAPI source is not available here; operations kept by name",
            "info",
        )
    for op in sorted(wanted - found.keys()):
        found[op] = Action(
            name=safe_name(op), title=title_from(op), effect=infer_effect(None, None, op)
        )
    return found


def _flow(
    raw: dict[str, Any], actions: dict[str, Action], path: str, diags: Diagnostics
) -> Flow | None:
    name = raw.get("name")
    steps_raw = [as_dict(s) for s in as_list(raw.get("steps"))[:MAX_STEPS]]
    if not isinstance(name, str) or not steps_raw:
        diag(diags, "flow-skipped", path, "a flow needs a name and steps")
        return None
    order: dict[str, int] = {}
    steps: list[FlowStep] = []
    inputs: dict[str, Any] = {}
    for index, step in enumerate(steps_raw):
        op = step.get("operationId")
        if not isinstance(op, str) or op not in actions:
            diag(diags, "unknown-action", f"{path}.steps[{index}]", "no operationId; flow skipped")
            return None
        bindings = _bindings(step, steps_raw, order, inputs)
        steps.append(
            FlowStep(
                action=actions[op].name,
                bindings=bindings,
                title=clean_text(step.get("description"), TITLE_MAX) or None,
            )
        )
        order[op] = index
    return Flow(
        name=safe_name(name),
        title=title_from(name),
        description=clean_text(raw.get("description"), DESCRIPTION_MAX),
        effect=strongest([actions[op].effect for op in order]),
        input_schema={"type": "object", "properties": inputs},
        steps=steps,
    )


def _bindings(
    step: dict[str, Any], steps: list[dict[str, Any]], order: dict[str, int], inputs: dict[str, Any]
) -> dict[str, str]:
    bindings = {}
    for section in as_dict(step.get("parameters")).values():
        for param, ref in list(as_dict(section).items())[:64]:
            if not isinstance(ref, str):
                continue
            if user := _USER.fullmatch(ref):
                inputs[user.group(1)] = {"type": "string"}
                bindings[safe_name(param, "param")] = f"$input.{user.group(1)}"
            elif (earlier := _STEP.fullmatch(ref)) and earlier.group(1) in order:
                index = order[earlier.group(1)]
                output = as_dict(steps[index].get("outputs")).get(earlier.group(2))
                where = output if isinstance(output, str) else earlier.group(2)
                where = ".".join(safe_name(p, "field") for p in where.split(".")[:16])
                bindings[safe_name(param, "param")] = f"$steps.{index}.{where}"
    return bindings
