"""Flows of agent-actions/0.1 (a helper of agent_actions, not a format): the spec is
agent_actions' docstring. A flow is kept only if every step names a known action and every
binding resolves; every step is checked so the owner sees all problems at once.
"""

from __future__ import annotations

import re
from typing import Any

from registry.formats._common import (
    Diagnostics,
    diag,
    json_schema,
    machine_name,
    read_each,
    text,
    title_from,
)
from registry.model.effects import strongest
from registry.model.sanitize import DESCRIPTION_MAX, TITLE_MAX, clean_text, safe_name
from registry.model.schemas import Action, Flow, FlowStep

MAX_FLOWS, MAX_STEPS = 64, 32  # stop work early; the facade caps again
INPUT_KEYS = ("input", "input_schema", "parameters")
_REF = re.compile(r"\$(?:input|steps\.(\d{1,4}))((?:\.[A-Za-z0-9_-]{1,64}){1,16})")


def read_flows(items: Any, actions: dict[str, Action], diags: Diagnostics) -> list[Flow]:
    """The flows over ``actions`` (by name) that resolve, each name once."""
    return read_each(
        items,
        "$.flows",
        MAX_FLOWS,
        diags,
        lambda item, path: _flow(item, actions, path, diags),
        kind="flow ",
    )


def _flow(item: Any, actions: dict[str, Action], path: str, diags: Diagnostics) -> Flow | None:
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
        effect=strongest([actions[step.action].effect for step in steps]),
        input_schema=inputs or {"type": "object"},
        steps=steps,
    )


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
    if not isinstance(target, str) or safe_name(target) not in actions:
        diag(diags, "unknown-action", f"{path}.action", "names no action of this manifest")
        return None
    bindings = item.get("bind", item.get("bindings")) or {}
    if not isinstance(bindings, dict):
        diag(diags, "bad-binding", f"{path}.bind", "must map parameter names to references")
        return None
    fields = inputs.get("properties")
    ok = [
        _binding_ok(ref, index, fields, f"{path}.bind.{param}", diags)
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
