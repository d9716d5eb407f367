"""A flow's auth, scope and cost come from its steps' actions even when a step's action is
declared in another document of the site (issue 20, seed 002: a flow over an oauth2 step that
costs 3.95 EUR says so), and follow that action when only its document changes."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import FlowRow
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.promotion import promote_site

ORIGIN = "https://shop.example"
FLOWS_URL = f"{ORIGIN}/.well-known/agent-actions.json"
PAY_URL = f"{ORIGIN}/agent-actions/pay.json"


def flows_doc() -> dict[str, Any]:
    return {
        "version": "0.1",
        "site": "shop.example",
        "actions": [{"name": "search", "method": "GET", "path": "/s{?q}", "effect": "read"}],
        "flows": [
            {
                "name": "buy_product",
                "steps": [
                    {"action": "search", "with": {"q": "$input.query"}},
                    {"action": "checkout", "with": {"item": "$steps.0.items.0.id"}},
                ],
            }
        ],
    }


def pay_doc(amount: float) -> dict[str, Any]:
    return {
        "version": "0.1",
        "site": "shop.example",
        "auth": {"type": "oauth2"},
        "actions": [
            {
                "name": "checkout",
                "method": "POST",
                "path": "/api/checkout",
                "effect": "spend",
                "scope": "orders:write",
                "cost": {"amount": amount, "currency": "EUR"},
            }
        ],
    }


def promote(session: Session, *docs: tuple[str, dict[str, Any]]) -> None:
    raws = [RawDocument(url=url, body=json.dumps(body).encode()) for url, body in docs]
    crawl = SiteCrawl(host="shop.example", origin=ORIGIN, documents=raws)
    promote_site(session, normalise_site(crawl))


def terms(session: Session) -> tuple[str, str | None, dict[str, Any] | None, str]:
    flow = session.scalars(select(FlowRow).where(FlowRow.name == "buy_product")).one()
    session.refresh(flow)
    return flow.auth, flow.scope, flow.cost, flow.effect


def test_a_flow_takes_its_terms_from_another_documents_step(session: Session) -> None:
    promote(session, (FLOWS_URL, flows_doc()), (PAY_URL, pay_doc(3.95)))
    assert terms(session) == (
        "oauth2",
        "orders:write",
        {"amount": 3.95, "currency": "EUR"},
        "spend",
    )
    # Only the other document changed: the flow follows its action.
    promote(session, (FLOWS_URL, flows_doc()), (PAY_URL, pay_doc(4.5)))
    assert terms(session)[2] == {"amount": 4.5, "currency": "EUR"}
