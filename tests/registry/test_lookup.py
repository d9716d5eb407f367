"""registry.store.lookup: an action, a flow and a site by id or host, and the store's figures, on
stores promoted from fixtures (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from harness.db import engine_for
from registry.db.engine import migrate, reading, transaction
from registry.db.tables import ActionRow, FlowRow
from registry.index import ActionIndex
from registry.search import FindQuery, page_json, search
from registry.store.crawl_state import finish_run, start_run
from registry.store.lookup import action_detail, flow_detail, site_detail, stats
from tests.helpers.stores import add_site, promote_manifest, shop_and_news, store_fixture


def ids(session: Session, model: type, **where: str) -> list[str]:
    query = select(model.id)  # type: ignore[attr-defined]
    for column, value in where.items():
        query = query.where(getattr(model, column) == value)
    return list(session.scalars(query))


def test_an_action_is_what_find_returns_plus_its_document(session: Session, tmp_path: Path) -> None:
    host = store_fixture(session, "agent-actions/full-shop.json")
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    found = json.loads(page_json(search(index, FindQuery(q="pay for the cart", site=[host]))))
    result = found["results"][0]
    detail = action_detail(session, result["id"])
    assert detail is not None
    assert {k: v for k, v in detail.items() if k in result} == {
        k: v for k, v in result.items() if k not in ("score", "explain")
    }
    assert detail["name"] == "checkout" and detail["needs_approval"] is True
    assert detail["cost"] == {"amount": 4.5, "currency": "EUR"}
    assert detail["site_name"] == "Kettle & Crumb" and detail["same_origin"] is True
    assert detail["document"]["url"] == "https://full-shop.example/"
    assert detail["document"]["format"] == "agent-actions"
    assert detail["document"]["fetched_at"].endswith("+00:00")


def test_an_action_stored_before_its_parts_is_answered_the_same(session: Session) -> None:
    shop_and_news(session)  # written with the models: no stored payload
    [ident] = ids(session, ActionRow, name="add_to_cart")
    assert session.get(ActionRow, ident).payload is None  # type: ignore[union-attr]
    detail = action_detail(session, ident)
    assert detail is not None and detail["needs_approval"] is False
    assert detail["input_schema"] == {"type": "object", "properties": {"sku": {"type": "string"}}}
    assert detail["source"] == {
        "url": "https://shop.example/.well-known/agent-actions.json",
        "format": "agent-actions",
    }
    assert action_detail(session, "0" * 24) is None and action_detail(session, "") is None


def test_a_flow_resolves_its_steps_to_their_actions(session: Session) -> None:
    host = store_fixture(session, "agent-actions/full-shop.json")
    [ident] = ids(session, FlowRow, name="buy_product")
    flow = flow_detail(session, ident)
    assert flow is not None and flow["kind"] == "flow" and flow["site"] == host
    assert flow["effect"] == "spend" and flow["needs_approval"] is True
    steps = flow["steps"]
    assert [s["action"] for s in steps] == [s["resolved"]["name"] for s in steps]
    assert steps[0]["bindings"] == {"q": "$input.query"}
    assert steps[0]["resolved"]["endpoint"] == "https://full-shop.example/api/products{?q,page}"
    assert flow_detail(session, "f" * 24) is None


def test_a_site_is_found_as_users_type_it(session: Session) -> None:
    add_site(session, "xn--bcher-kva.example", [{"name": "search", "title": "Search"}])
    store_fixture(session, "agent-actions/full-shop.json")
    for typed in ("full-shop.example", "FULL-SHOP.Example.", "https://full-shop.example/x?y"):
        assert site_detail(session, typed)["host"] == "full-shop.example"  # type: ignore[index]
    assert site_detail(session, "bücher.example")["host"] == "xn--bcher-kva.example"  # type: ignore[index]
    assert site_detail(session, "BÜCHER.example")["host"] == "xn--bcher-kva.example"  # type: ignore[index]
    for unknown in ("other.example", "", "not a host!", "x" * 400, "ftp://full-shop.example"):
        assert site_detail(session, unknown) is None


def test_a_site_lists_its_actions_flows_documents_and_last_crawl(session: Session) -> None:
    host = store_fixture(session, "agent-actions/full-shop.json")
    run = start_run(session, kind="crawl", targets=["https://FULL-SHOP.example/", "b.example"])
    finish_run(
        session, run, {"sites": 2, "site_errors": {host: ["timeout"]}, "changed_sites": [host]}
    )
    start_run(session, kind="crawl", targets=["elsewhere.example"])  # later, not this site
    site = site_detail(session, host)
    assert site is not None
    assert site["name"] == "Kettle & Crumb" and site["origin"] == "https://full-shop.example"
    assert site["version"] == 1 and site["changed_at"].endswith("+00:00")
    assert {a["name"] for a in site["actions"]} == {
        "search_products",
        "add_to_cart",
        "checkout",
        "cancelOrder",
    }
    assert set(site["actions"][0]) == {"id", "name", "title", "effect", "method", "endpoint"}
    assert [f["name"] for f in site["flows"]] == ["buy_product"]
    [doc] = site["documents"]
    assert doc["format"] == "agent-actions" and doc["status"] == 200
    assert isinstance(doc["diagnostics"], list)
    last = site["last_crawl"]
    assert last["id"] == run and last["status"] == "finished"
    assert last["site_errors"] == ["timeout"] and last["stats"] == {"sites": 2}


def test_stats_count_the_store(session: Session) -> None:
    before = stats(session)
    shop_and_news(session)
    store_fixture(session, "openapi/petstore-31.json")
    after = stats(session)
    assert after["sites"] - before["sites"] == 3
    assert after["actions"] - before["actions"] == 7 + len(
        site_detail(session, "petstore-31.example")["actions"]
    )  # type: ignore[index]
    assert after["flows"] - before["flows"] == 1
    assert after["documents_by_format"]["agent-actions"] >= 2
    assert after["documents_by_format"]["openapi"] >= 1
    assert after["actions_by_effect"]["spend"] >= 1 and after["actions_by_effect"]["delete"] >= 1
    assert sum(after["actions_by_effect"].values()) == after["actions"]
    run = start_run(session, kind="crawl", targets=["shop.example"])
    assert stats(session)["last_crawl"]["id"] == run


def test_a_reader_sees_one_snapshot(empty_db_url: str, tmp_path: Path) -> None:
    """registry.db.engine.reading: every statement of a lookup sees the same promotions, whatever
    commits meanwhile (REPEATABLE READ on PostgreSQL, a WAL snapshot on SQLite)."""
    engine = engine_for(empty_db_url, tmp_path)
    migrate(engine)
    search = [{"name": "search", "method": "GET", "path": "/s{?q}"}]
    with transaction(engine) as session:
        promote_manifest(session, "a.example", search)
    with reading(engine) as reader:
        assert stats(reader)["sites"] == 1
        with transaction(engine) as writer:
            promote_manifest(writer, "b.example", search)
        assert stats(reader)["sites"] == 1 and site_detail(reader, "b.example") is None
    with reading(engine) as reader:
        assert stats(reader)["sites"] == 2
    engine.dispose()
