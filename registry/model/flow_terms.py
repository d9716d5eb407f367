"""What a flow needs and costs, worked out from its steps' actions: the auth, the grant
scopes and the cost an agent must know before it runs the flow (seed 002: a flow over an
oauth2 step that costs 3.95 EUR says so, not "unknown" and "no cost").

- auth: what the steps that need one need, when they agree; else what the most consequential
  of them needs (a spend step's over a write step's); ``unknown`` when no step's is known,
  ``none`` only when no step needs any;
- scope: every step's scope, each once, in step order, space-separated (as OAuth writes them);
- cost: a fixed amount (the steps' amounts added, one currency); one step's cost by an input
  field the flow passes through (``$input.x``) as the flow's field ``x``; anything else the
  list of costly steps (``{"steps": [{"step": N, ...its cost}]}``), so nothing is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from registry.model.effects import STRENGTH, infer_effect
from registry.model.schemas import Action, Auth, Effect, FlowStep

SCOPE_MAX = 200  # the stored column's width


def flow_auth(needs: Sequence[tuple[Auth, Effect]]) -> Auth:
    """The auth a flow needs, from its steps' (auth, effect): the one its steps need, else
    (steps needing different ones) the one its most consequential step needs."""
    known = [(auth, effect) for auth, effect in needs if auth not in ("none", "unknown")]
    if not known:
        return "unknown" if any(auth == "unknown" for auth, _ in needs) or not needs else "none"
    for effect in STRENGTH:
        for auth, step_effect in known:
            if step_effect == effect:
                return auth
    return known[0][0]


def flow_scope(scopes: Sequence[str | None]) -> str | None:
    joined = " ".join(dict.fromkeys(s for scope in scopes if scope for s in scope.split()))
    if len(joined) > SCOPE_MAX:
        joined = joined[:SCOPE_MAX].rsplit(" ", 1)[0]
    return joined or None


def flow_cost(steps: Sequence[FlowStep], actions: Mapping[str, Action]) -> dict[str, Any] | None:
    costly = [
        (index, step, action.cost)
        for index, step in enumerate(steps)
        if (action := actions.get(step.action)) is not None and action.cost
    ]
    if not costly:
        return None
    currencies = {cost.get("currency") for _, _, cost in costly}
    fixed = [cost["amount"] for _, _, cost in costly if "field" not in cost and "amount" in cost]
    if len(currencies) == 1 and len(fixed) == len(costly):
        return {"amount": round(sum(fixed), 6), "currency": currencies.pop()}
    if len(costly) == 1 and (field := _passed_through(costly[0][1], costly[0][2])):
        return {"field": field, "currency": costly[0][2]["currency"]}
    return {"steps": [{"step": index} | cost for index, _, cost in costly]}


def _passed_through(step: FlowStep, cost: dict[str, Any]) -> str | None:
    """The flow input a step's cost field is bound to, when it is bound straight to one."""
    field = cost.get("field")
    bound = step.bindings.get(field) if isinstance(field, str) else None
    if bound and bound.startswith("$input.") and bound.count(".") == 1:
        return bound.removeprefix("$input.")
    return None


def flow_terms(
    steps: Sequence[FlowStep], actions: Mapping[str, Action], unknown_step: Auth = "unknown"
) -> dict[str, Any]:
    """``{"auth", "scope", "cost"}`` of a flow over ``steps``; ``actions`` by name. A step
    naming no action of ``actions`` needs ``unknown_step`` (a manifest's own default)."""
    found = [actions.get(step.action) for step in steps]
    return {
        "auth": flow_auth(
            [
                (a.auth, a.effect) if a else (unknown_step, infer_effect(None, None, s.action))
                for a, s in zip(found, steps, strict=True)
            ]
        ),
        "scope": flow_scope([a.scope for a in found if a]),
        "cost": flow_cost(steps, actions),
    }
