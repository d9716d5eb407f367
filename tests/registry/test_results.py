"""What a result carries (auth, scope, cost, output schema: what an agent must know before it
acts), and that its JSON comes from one definition, FindResult, however it was indexed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from api.app import create_app
from registry.config import Settings
from registry.db.tables import ActionRow
from registry.index import ActionIndex
from registry.index.parts import INDEX_VERSION
from registry.model.results import FindResult, result_payload
from registry.model.schemas import Action, Flow, FlowStep, Manifest, RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.store.promotion import promote_site
from tests.helpers.stores import documents

HOST = "paper.example"
OUTPUT = {"type": "object", "properties": {"order_id": {"type": "string"}}}


def promote_paper(session: Session) -> None:
    """A shop whose checkout costs money, needs an oauth2 grant and says what it returns."""
    url = f"https://{HOST}/.well-known/agent-actions.json"
    manifest = Manifest(
        site=HOST,
        url=url,
        format="agent-actions",
        actions=[
            Action(
                name="find_paper",
                title="Find printer paper",
                effect="read",
                method="GET",
                endpoint=f"https://{HOST}/find",
                auth="none",
            ),
            Action(
                name="checkout",
                title="Check out",
                effect="spend",
                method="POST",
                endpoint=f"https://{HOST}/checkout",
                auth="oauth2",
                scope="orders:write",
                cost={"amount": 3.95, "currency": "EUR"},
                output_schema=OUTPUT,
            ),
        ],
        flows=[
            Flow(
                name="buy_paper",
                title="Buy printer paper",
                effect="spend",
                steps=[
                    FlowStep(action="find_paper", title="Pick a ream"),
                    FlowStep(action="checkout"),
                ],
            )
        ],
    )
    body = manifest.model_dump_json().encode()
    raw = RawDocument(url=url, body=body, content_type="application/json")
    promote_site(
        session,
        SiteUpdate(
            HOST, f"https://{HOST}", [NormalisedDocument(raw, manifest, content_hash(body))]
        ),
    )


@pytest.fixture
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    promote_paper(session)
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    with TestClient(create_app(Settings(data_dir=tmp_path), index=index)) as test_client:
        yield test_client


def results(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/find", params=params)
    assert response.status_code == 200, response.text
    return response.json()["results"]  # type: ignore[no-any-return]


def test_a_result_says_what_calling_it_needs_and_costs(client: TestClient) -> None:
    [checkout] = results(client, q="check out", method="POST")
    assert checkout["auth"] == "oauth2" and checkout["scope"] == "orders:write"
    assert checkout["cost"] == {"amount": 3.95, "currency": "EUR"}
    assert checkout["output_schema"] == OUTPUT
    [find] = results(client, q="find printer paper", method="GET")
    assert find["auth"] == "none" and find["cost"] is None and find["output_schema"] is None


def test_a_flow_lists_its_steps_by_title(client: TestClient) -> None:
    [flow] = [r for r in results(client, q="buy printer paper") if r["kind"] == "flow"]
    # the second step has no title of its own: it has its action's
    assert [(s["action"], s["title"]) for s in flow["steps"]] == [
        ("find_paper", "Pick a ream"),
        ("checkout", "Check out"),
    ]
    assert flow["auth"] == "unknown" and flow["cost"] is None


def test_every_payload_is_a_find_result_however_it_was_indexed(session: Session) -> None:
    promote_paper(session)
    stored = documents(session, HOST)
    session.execute(update(ActionRow).values(index_version=INDEX_VERSION - 1, payload="{}"))
    rebuilt = documents(session, HOST)
    assert rebuilt == stored
    for doc in stored:
        payload = doc["payload"]
        FindResult.model_validate(payload | {"score": 1.0})  # no field missing, none extra
        # liveness is spliced in at index time, only for a probed endpoint (none here)
        wanted = set(FindResult.model_fields) - {"score", "explain", "liveness"}
        assert set(payload) == wanted - ({"steps"} if payload["kind"] == "action" else set())


def test_the_payload_cannot_drop_a_field() -> None:
    values = {
        name: None
        for name in (
            "id",
            "kind",
            "site",
            "name",
            "title",
            "description",
            "effect",
            "type",
            "method",
            "endpoint",
            "origin",
            "verified",
            "auth",
            "scope",
            "source",
        )
    }
    texts = {"cost": None, "input_schema": None, "output_schema": None}
    assert result_payload(values, texts).endswith(
        ',"cost":null,"input_schema":{},"output_schema":null}'
    )
    with pytest.raises(KeyError, match="scope"):
        result_payload({k: v for k, v in values.items() if k != "scope"}, texts)
    with pytest.raises(KeyError, match="steps"):
        result_payload(values | {"steps": []}, texts)  # only a flow has steps
    with pytest.raises(KeyError, match="cost"):
        result_payload(values, {"input_schema": None, "output_schema": None})
