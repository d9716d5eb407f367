"""A flow's auth, scope, cost and effect from its steps' actions wherever on the site they are
declared (registry.model.flow_terms). Normalising works them out from the flow's own document;
a step naming an action of another document of the site (agent-actions keeps such a step) is
only known here, once the site's documents are stored. Takes a Session and only flushes."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, FlowRow, Site
from registry.index.parts import known_effect
from registry.model.effects import strongest
from registry.model.flow_terms import flow_terms
from registry.model.schemas import Action, Effect, FlowStep


def _action(row: ActionRow) -> Action:
    return Action.model_validate(
        {
            "name": row.name,
            "title": row.title,
            "effect": row.effect,
            "auth": row.auth,
            "scope": row.scope,
            "cost": row.cost,
        }
    )


def settle_flow_terms(session: Session, site: Site) -> None:
    """Work out again the terms of ``site``'s flows with a step over another document's
    action, when every step's action is now stored (else the normalised terms stand)."""
    flows = session.scalars(select(FlowRow).where(FlowRow.site_id == site.id)).all()
    if not flows:
        return
    rows = session.scalars(
        select(ActionRow)
        .where(ActionRow.site_id == site.id)
        .order_by(ActionRow.document_id, ActionRow.name)
    )
    by_document: dict[int, dict[str, Action]] = defaultdict(dict)
    on_site: dict[str, Action] = {}
    for row in rows:
        by_document[row.document_id][row.name] = on_site.setdefault(row.name, _action(row))
    for flow in flows:
        own = by_document.get(flow.document_id, {})
        names = [step.get("action") for step in flow.steps]
        if all(name in own for name in names) or not all(name in on_site for name in names):
            continue
        actions = on_site | own  # the flow's own document's action first
        steps = [FlowStep.model_validate(_step(step)) for step in flow.steps]
        found: dict[str, Any] = flow_terms(steps, actions)
        effect = strongest(
            [
                cast(Effect, known_effect(flow.effect)),
                *(actions[str(name)].effect for name in names),
            ]
        )
        _update(flow, found | {"effect": effect})
    session.flush()


def _step(stored: dict[str, Any]) -> dict[str, Any]:
    return {key: stored[key] for key in ("action", "title", "bindings") if key in stored}


def _update(flow: FlowRow, values: dict[str, Any]) -> None:
    for key, value in values.items():
        if getattr(flow, key) != value:
            setattr(flow, key, value)
