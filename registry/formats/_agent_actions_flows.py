"""Flows of agent-actions/0.1 (a helper of agent_actions, not a format): the spec is seed 002
as agent_actions' docstring reads it. A flow is kept only if every step names an action and
every binding resolves; every step is checked so the owner sees all problems at once.

A step binds with ``with`` (the seed's word), ``bind`` or ``bindings``. A step may name an
action this manifest does not list (the seed's own example names ``search_products`` and
``checkout`` beside the one action it prints): it is kept with a warning, and resolved against
the site's other documents when the flow is looked up. A flow that declares no input gets one
worked out from its ``$input.<field>`` references (``flow_input``).
"""

from __future__ import annotations

import re
from typing import Any

from registry.formats._common import (
    Diagnostics,
    as_dict,
    as_list,
    diag,
    json_schema,
    machine_name,
    read_each,
    text,
    title_from,
)
from registry.model.effects import infer_effect, strongest
from registry.model.flow_terms import flow_terms
from registry.model.sanitize import DESCRIPTION_MAX, TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Auth, Effect, Flow, FlowStep

MAX_FLOWS, MAX_STEPS = 64, 32  # stop work early; the facade caps again
INPUT_KEYS = ("input", "input_schema", "parameters")
BIND_KEYS = ("with", "bind", "bindings")
_REF = re.compile(r"\$(?:input|steps\.(\d{1,4}))((?:\.[A-Za-z0-9_-]{1,64}){1,16})")


def read_flows(
    items: Any, actions: dict[str, Action], diags: Diagnostics, auth: Auth = "unknown"
) -> list[Flow]:
    """The flows over ``actions`` (by name) that resolve, each name once; ``auth`` is what a
    step naming an action of another document needs (the manifest's top-level auth)."""
    return read_each(
        items,
        "$.flows",
        MAX_FLOWS,
        diags,
        lambda item, path: _flow(item, actions, path, diags, auth),
        kind="flow ",
    )


def _flow(
    item: Any, actions: dict[str, Action], path: str, diags: Diagnostics, auth: Auth
) -> Flow | None:
    name = machine_name(item, path, diags, kind="flow")
    if name is None:
        return None
    inputs = json_schema(item, INPUT_KEYS, path, diags)
    steps = _steps(item.get("steps"), actions, inputs or {}, path, diags)
    if steps is None:
        diag(diags, "flow-skipped", path, f"flow {name!r} dropped: its steps do not resolve")
        return None
    return Flow(
        name=name,
        title=text(item.get("title"), TITLE_MAX, f"{path}.title", diags) or title_from(name),
        description=text(item.get("description"), DESCRIPTION_MAX, f"{path}.description", diags),
        effect=_effect(name, steps, actions),
        input_schema=inputs or flow_input(steps, actions),
        steps=steps,
        **flow_terms(steps, actions, auth),
    )


def _effect(name: str, steps: list[FlowStep], actions: dict[str, Action]) -> Effect:
    """The strongest of its steps' effects; a step of another document's by its action's
    name, and the flow's own name when its verb says more ("buy_product": spend)."""
    effects = [
        actions[step.action].effect
        if step.action in actions
        else infer_effect(None, None, step.action)
        for step in steps
    ]
    if any(step.action not in actions for step in steps):
        effects.append(infer_effect(None, None, name))
    return strongest(effects)


def flow_input(steps: list[FlowStep], actions: dict[str, Action]) -> dict[str, Any]:
    """The input a flow's ``$input.<field>`` references say it needs, each field typed as
    the action it feeds types it (the first that does), and required unless every action it
    feeds says it is optional."""
    properties: dict[str, Any] = {}
    typed: set[str] = set()
    optional: dict[str, bool] = {}
    for step in steps:
        action = actions.get(step.action)
        schema = action.input_schema if action else {}
        params = as_dict(schema.get("properties"))
        required = as_list(schema.get("required"))
        for param, ref in step.bindings.items():
            if not ref.startswith("$input."):
                continue
            field, *deeper = ref.removeprefix("$input.").split(".")
            spec = params.get(param) if action and not deeper else None
            if isinstance(spec, dict) and field not in typed:
                properties[field] = dict(spec)
                typed.add(field)
            elif field not in properties:
                properties[field] = _untyped(step.action, param, deeper)
            said_optional = action is not None and not deeper and param not in required
            optional[field] = optional.get(field, True) and said_optional
    schema_out: dict[str, Any] = {"type": "object", "properties": properties}
    if needed := [field for field in properties if not optional[field]]:
        schema_out["required"] = needed
    return schema_out


def _untyped(action: str, param: str, deeper: list[str]) -> dict[str, Any]:
    """A field whose action types it nowhere here: say where it goes, so an agent can look
    that action up (its document may be another of the site's)."""
    if deeper:
        return {"type": "object"}
    return {"description": f"passed to {action} as {param}"}


def _steps(
    raw: Any, actions: dict[str, Action], inputs: dict[str, Any], path: str, diags: Diagnostics
) -> list[FlowStep] | None:
    if not isinstance(raw, list) or not raw or len(raw) > MAX_STEPS:
        diag(diags, "missing-field", f"{path}.steps", f"needs 1 to {MAX_STEPS} steps")
        return None
    # Check every step, not just up to the first bad one, so the owner sees all problems.
    steps = [
        _step(item, index, actions, inputs, f"{path}.steps[{index}]", diags)
        for index, item in enumerate(raw)
    ]
    return None if None in steps else [step for step in steps if step]


def _step(
    item: Any,
    index: int,
    actions: dict[str, Action],
    inputs: dict[str, Any],
    path: str,
    diags: Diagnostics,
) -> FlowStep | None:
    target = item.get("action") if isinstance(item, dict) else None
    if not isinstance(target, str) or not target.strip():
        diag(diags, "missing-field", f"{path}.action", "a step must name its action")
        return None
    if safe_name(target) not in actions:
        diag(
            diags,
            "unknown-action",
            f"{path}.action",
            f"{safe_name(target)!r} is not in this manifest; the step is kept, and is "
            "resolved against the site's other documents",
        )
    key = next((k for k in BIND_KEYS if item.get(k) is not None), BIND_KEYS[0])
    bindings = item.get(key) or {}
    if not isinstance(bindings, dict):
        diag(diags, "bad-binding", f"{path}.{key}", "must map parameter names to references")
        return None
    fields = inputs.get("properties")
    ok = [
        _binding_ok(ref, index, fields, f"{path}.{key}.{param}", diags)
        for param, ref in bindings.items()
    ]
    if not all(ok):
        return None
    return FlowStep(
        action=safe_name(target),
        title=clean_text(item.get("title"), TITLE_MAX) or None,
        bindings={safe_name(param, "param"): ref for param, ref in bindings.items()},
    )


def _binding_ok(ref: Any, index: int, fields: Any, path: str, diags: Diagnostics) -> bool:
    match = _REF.fullmatch(ref) if isinstance(ref, str) else None
    if match is None:
        diag(diags, "bad-binding", path, "must be $input.<field> or $steps.<N>.<path>")
        return False
    step, first = match.group(1), match.group(2).split(".")[1]
    if step is not None and int(step) >= index:
        diag(diags, "bad-binding", path, f"step {step} does not run before step {index}")
        return False
    if step is None and isinstance(fields, dict) and first not in fields:
        diag(diags, "bad-binding", path, f"the flow input has no field {first!r}")
        return False
    return True
