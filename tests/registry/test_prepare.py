"""registry.calls.prepare: the exact request for an action and an input, never sent. Actions come
from fixture sites promoted through the store (registry.store.lookup.action_detail), so what is
planned is what an agent gets from GET /actions/{id}/prepare."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.calls.input_check import MAX_INPUT_BYTES
from registry.calls.prepare import PrepareError, prepare_call
from registry.calls.uritemplate import expand
from registry.db.tables import ActionRow
from registry.store.lookup import action_detail
from tests.helpers.stores import store_fixture


def action(session: Session, fixture: str, name: str) -> dict[str, Any]:
    host = store_fixture(session, fixture)
    ident = session.scalars(select(ActionRow.id).where(ActionRow.name == name)).first()
    detail = action_detail(session, ident or "")
    assert detail is not None and detail["site"] == host
    return detail


def problems(act: dict[str, Any], value: Any) -> tuple[str, list[dict[str, str]]]:
    with pytest.raises(PrepareError) as caught:
        prepare_call(act, value)
    return caught.value.code, caught.value.problems


def test_get_fills_the_url_template(session: Session) -> None:
    search = action(session, "agent-actions/full-shop.json", "search_products")
    call = prepare_call(search, {"q": "loaf tin & scale", "page": 2})
    assert call == {
        "method": "GET",
        "url": "https://full-shop.example/api/products?q=loaf%20tin%20%26%20scale&page=2",
        "headers": {},
        "body": None,
        "needs_approval": False,
        "approval_reasons": [],
        "effect": "read",
        "cost": None,
        "scope": "catalog:read",
        "auth": "none",
    }


def test_post_sends_a_json_body(session: Session) -> None:
    add = action(session, "agent-actions/full-shop.json", "add_to_cart")
    call = prepare_call(add, {"product_id": "tin-9", "quantity": 2})
    assert call["method"] == "POST" and call["url"] == "https://full-shop.example/api/cart/items"
    assert call["headers"] == {"Content-Type": "application/json"}
    assert json.loads(call["body"]) == {"product_id": "tin-9", "quantity": 2}
    assert call["needs_approval"] is False and call["effect"] == "write"


def test_a_form_action_sends_a_form(session: Session) -> None:
    add = action(session, "agent-actions/full-shop.json", "add_to_cart")
    add["input_schema"] = add["input_schema"] | {
        "x-content-type": "application/x-www-form-urlencoded"
    }
    call = prepare_call(add, {"product_id": "tin 9", "quantity": 2})
    assert call["headers"] == {"Content-Type": "application/x-www-form-urlencoded"}
    assert call["body"] == "product_id=tin+9&quantity=2"


def test_a_webmcp_form_is_sent_as_its_enctype(session: Session) -> None:
    subscribe = action(session, "schemaorg/webmcp-forms.html", "subscribe_newsletter")
    call = prepare_call(subscribe, {"email": "me@example.org"})
    assert call["method"] == "POST"
    assert call["url"] == "https://news.webmcp-forms.example/subscribe"
    assert call["headers"] == {"Content-Type": "application/x-www-form-urlencoded"}
    assert call["body"] == "email=me%40example.org"
    assert call["effect"] == "write" and call["needs_approval"] is False


def test_an_openapi_form_body_is_sent_as_a_form(session: Session) -> None:
    rent = action(session, "openapi/swagger2.yaml", "rent_kite")
    body = rent["input_schema"]["properties"]["body"]
    rent["input_schema"]["properties"]["body"] = body | {
        "x-content-type": "application/x-www-form-urlencoded"
    }
    call = prepare_call(rent, {"body": {"kite": "k 1", "day": "2024-03-01"}})
    assert call["headers"] == {"Content-Type": "application/x-www-form-urlencoded"}
    assert call["body"] == "kite=k+1&day=2024-03-01"


def test_every_problem_is_listed_with_its_path(session: Session) -> None:
    search = action(session, "agent-actions/full-shop.json", "search_products")
    code, found = problems(search, {"page": 0, "q": 5})
    assert code == "invalid-input"
    assert found == [
        {"path": "$.page", "message": "0 is less than the minimum of 1"},
        {"path": "$.q", "message": "5 is not of type 'string'"},
    ]
    _, found = problems(search, {})
    assert found == [{"path": "$.q", "message": "'q' is required"}]


def test_spend_needs_approval_and_a_cost_field_is_resolved(session: Session) -> None:
    checkout = action(session, "agent-actions/full-shop.json", "checkout")
    call = prepare_call(checkout, {"cart_id": "c1"})
    assert call["needs_approval"] is True and call["auth"] == "oauth2"
    assert call["cost"] == {"amount": 4.5, "currency": "EUR"}
    checkout["cost"] = {"field": "order.total", "currency": "EUR"}
    call = prepare_call(checkout, {"cart_id": "c1", "order": {"total": 12.5}})
    assert call["cost"] == {"field": "order.total", "currency": "EUR", "amount": 12.5}
    _, found = problems(checkout, {"order": {"total": -1}})
    assert [p["path"] for p in found] == ["$.cart_id", "$.order.total"]


def test_delete_fills_its_path_and_needs_approval(session: Session) -> None:
    cancel = action(session, "agent-actions/full-shop.json", "cancelOrder")
    call = prepare_call(cancel, {"order_id": "A/7"})
    assert call["method"] == "DELETE" and call["needs_approval"] is True
    assert call["url"] == "https://full-shop.example/api/orders/A%2F7" and call["body"] is None
    cancel["input_schema"] = {"type": "object"}  # nothing required, but the URL needs it
    assert problems(cancel, {}) == (
        "invalid-input",
        [{"path": "$.order_id", "message": "the URL needs a value here"}],
    )


def test_openapi_parameters_go_where_they_say(session: Session) -> None:
    get_pet = action(session, "openapi/petstore-31.json", "getPet")
    assert prepare_call(get_pet, {"petId": "rex"})["url"] == (
        "https://api.petstore-31.example/v1/pets/rex"
    )
    kites = action(session, "openapi/swagger2.yaml", "list_kites")
    call = prepare_call(kites, {"colour": "red", "since": "2024-02-01"})
    assert call["url"] == "https://kites.swagger2.example/api/kites?colour=red&since=2024-02-01"
    _, found = problems(kites, {"colour": "green", "since": "not a date"})
    assert [p["path"] for p in found] == ["$.colour", "$.since"]
    rent = action(session, "openapi/swagger2.yaml", "rent_kite")
    call = prepare_call(rent, {"body": {"kite": "k1", "day": "2024-03-01"}})
    assert json.loads(call["body"]) == {"kite": "k1", "day": "2024-03-01"}
    placed = get_pet | {
        "input_schema": {
            "type": "object",
            "properties": {
                "petId": {"type": "string", "x-in": "path"},
                "key": {"type": "string", "x-in": "header"},
                "sid": {"type": "string", "x-in": "cookie"},
                "body": {"type": "object", "x-in": "body"},
            },
        }
    }
    call = prepare_call(placed, {"petId": "rex", "key": "k", "sid": "s", "body": {"a": 1}})
    assert call["headers"] == {"key": "k", "Cookie": "sid=s", "Content-Type": "application/json"}
    assert call["body"] == '{"a":1}'
    for bad in ({"key": "k\r\nX-Evil: 1"}, {"sid": "s; admin=1"}):
        assert problems(placed, {"petId": "rex", **bad})[0] == "invalid-input"


def test_an_action_without_endpoint_or_usable_schema_is_refused(session: Session) -> None:
    search = action(session, "agent-actions/full-shop.json", "search_products")
    code, found = problems(search | {"endpoint": None}, {"q": "x"})
    assert code == "not-callable" and "no endpoint" in found[0]["message"]
    code, _ = problems(search | {"input_schema": {"type": "nonsense"}}, {"q": "x"})
    assert code == "not-callable"
    code, _ = problems(
        search | {"input_schema": {"$ref": "https://elsewhere.example/s"}}, {"q": "x"}
    )
    assert code == "not-callable"


def test_input_is_bounded(session: Session) -> None:
    search = action(session, "agent-actions/full-shop.json", "search_products")
    assert problems(search, [])[1] == [{"path": "$", "message": "input must be a JSON object"}]
    _, found = problems(search, {"q": "x" * MAX_INPUT_BYTES})
    assert "larger than" in found[0]["message"]
    deep: Any = "x"
    for _ in range(40):
        deep = [deep]
    assert "deeper" in problems(search, {"q": deep})[1][0]["message"]
    assert "NaN" in problems(search, {"q": "x", "page": float("nan")})[1][0]["message"]


def test_a_site_pattern_runs_in_linear_time(session: Session) -> None:
    """A hostile site's patterns run in RE2: Python's re takes 1.1 s to match ``^(a+)+$``
    against 24 a's and a "!" (measured), twice as long for each more a: 40 would be about 20
    hours of a server thread. Here it is checked (and refused) at once."""
    search = action(session, "agent-actions/full-shop.json", "search_products")
    hostile = "^(a+)+$"
    search["input_schema"] = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "pattern": hostile},
            "pattern": {"type": "string"},  # a field named "pattern" is a field, not a keyword
            "tags": {
                "type": "object",
                "patternProperties": {hostile: {"type": "integer"}},
                "additionalProperties": False,
            },
        },
    }
    evil = "a" * 40 + "!"
    started = time.perf_counter()
    _, found = problems(search, {"q": evil, "pattern": "x", "tags": {evil: 1, "aaa": "x"}})
    assert time.perf_counter() - started < 0.5
    assert found == [
        {"path": "$.q", "message": f"{evil!r} does not match {hostile!r}"},
        {"path": "$.tags", "message": f"additional properties are not allowed ({evil!r})"},
        {"path": "$.tags.aaa", "message": "'x' is not of type 'integer'"},
    ]
    assert prepare_call(search, {"q": "aaaa", "tags": {"aa": 2}})["method"] == "GET"
    # A pattern RE2 cannot read (a lookahead) is left to the site's server.
    search["input_schema"] = {
        "type": "object",
        "properties": {"q": {"type": "string", "pattern": "^(?=x)x$"}},
    }
    assert prepare_call(search, {"q": "y"})["url"].endswith("?q=y")


def test_values_cannot_move_the_call_to_another_host(session: Session) -> None:
    search = action(session, "agent-actions/full-shop.json", "search_products")
    reserved = search | {"endpoint": "https://full-shop.example{+path}"}
    for path in ("@evil.example/", ".evil.example/", ":8080/x"):
        code, _ = problems(reserved, {"q": "x", "path": path})
        assert code == "invalid-input"
    assert prepare_call(reserved, {"q": "x", "path": "/a/b"})["url"] == (
        "https://full-shop.example/a/b?q=x"
    )


@pytest.mark.parametrize(
    ("template", "expected"),
    [  # RFC 6570 section 1.2's examples
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{+path}/here", "/foo/bar/here"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.list*}", "X.red.green.blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{var:3}", "val"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?undef}", ""),
        ("{/var,undef}", "/value"),
    ],
)
def test_rfc6570(template: str, expected: str) -> None:
    values = {
        "var": "value",
        "hello": "Hello World!",
        "path": "/foo/bar",
        "x": "1024",
        "y": "768",
        "empty": "",
        "list": ["red", "green", "blue"],
        "keys": {"semi": ";", "dot": ".", "comma": ","},
    }
    assert expand(template, values) == expected


def test_an_a2a_skill_is_a_json_rpc_message_send(session: Session) -> None:
    """Not `POST url {"message": ...}`, which no A2A agent accepts: A2A's JSON-RPC
    message/send with the text as the Message's one part."""
    skill = action(session, "a2a/card-03.json", "plan-meals")
    call = prepare_call(skill, {"message": "Dinners with lentils"})
    assert (call["method"], call["url"]) == ("POST", "https://agent.card-03.example/a2a/v1")
    assert call["headers"] == {"Content-Type": "application/json"}
    body = json.loads(call["body"])
    assert (body["jsonrpc"], body["method"]) == ("2.0", "message/send") and body["id"]
    message = body["params"]["message"]
    assert (message["role"], message["parts"]) == (
        "user",
        [{"kind": "text", "text": "Dinners with lentils"}],
    )
    assert message["messageId"] and message["kind"] == "message"
    code, found = problems(skill, {})
    assert code == "invalid-input" and found[0]["path"] == "$.message"


def test_an_mcp_tool_is_a_json_rpc_tools_call(session: Session) -> None:
    vent = action(session, "mcp/server-card-tools.json", "open_vent")
    call = prepare_call(vent, {"vent": 3})
    assert (call["method"], call["url"]) == ("POST", "https://server-card-tools.example/mcp")
    assert call["headers"] == {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    body = json.loads(call["body"])
    assert (body["jsonrpc"], body["method"], body["params"]) == (
        "2.0",
        "tools/call",
        {"name": "open_vent", "arguments": {"vent": 3}},
    )


def test_an_mcp_server_itself_cannot_be_planned_and_says_why(session: Session) -> None:
    server = action(session, "mcp/server-card-tools.json", "greenhouse")
    code, found = problems(server, {})
    assert code == "not-callable"
    assert "MCP server, not one of its tools" in found[0]["message"]
    assert "https://server-card-tools.example/mcp" in found[0]["message"]
    # connecting reaches every tool: as strong as its strongest (wipe_history deletes)
    assert server["effect"] == "delete"
