"""The seed documents' own examples, read in place from ../shared/seeds and normalised exactly
as printed: what each says an agent needs is in the manifest. (Their cross-origin endpoints
are checked where origins are: here only that no action is lost.) The doors (ingest, /find,
/actions, /flows, prepare, MCP) are tests/api/test_seed_doors.py."""

from __future__ import annotations

import json
from typing import Any

from registry.formats import normalise
from registry.model.schemas import Action, Flow, Manifest, RawDocument
from tests.helpers.seeds import seed_body, seed_examples, seed_file, wildcard_document


def read(example: dict[str, Any], url: str) -> Manifest:
    body = json.dumps(example).encode()
    return normalise(RawDocument(url=url, body=body, content_type="application/json"))


def action(manifest: Manifest, name: str) -> Action:
    return next(a for a in manifest.actions if a.name == name)


def flow(manifest: Manifest, name: str) -> Flow:
    return next(f for f in manifest.flows if f.name == name)


def errors(manifest: Manifest) -> list[str]:
    return [d.code for d in manifest.diagnostics if d.severity == "error"]


# --- seed 002: agent-actions/0.1 ---------------------------------------------------------


def test_002_manifest_as_printed() -> None:
    example = seed_examples("002")[0]
    assert example["version"] == "agent-actions/0.1"
    got = read(example, "https://shop.example/.well-known/agent-actions.json")
    assert got.format == "agent-actions" and not errors(got)
    cart = action(got, "add_to_cart")
    # the top-level {"type": "agent-grant"} applies to the action, which names no auth
    assert (cart.auth, cart.scope, cart.effect, cart.method) == (
        "grant",
        "cart:write",
        "write",
        "POST",
    )
    assert cart.input_schema["properties"]["quantity"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 20,
    }
    assert cart.input_schema["required"] == ["product_id", "quantity"]
    buy = flow(got, "buy_product")
    # steps bound with "with", in order, each binding as printed
    assert [(s.action, s.bindings) for s in buy.steps] == [
        ("search_products", {"query": "$input.query"}),
        ("add_to_cart", {"product_id": "$steps.0.items.0.id", "quantity": "$input.quantity"}),
        ("checkout", {"cart_id": "$steps.1.cart_id"}),
    ]
    # no input declared: worked out from $input.query and $input.quantity, typed by add_to_cart
    assert buy.input_schema == {
        "type": "object",
        "properties": {
            # search_products is not printed: the field says where it goes
            "query": {"description": "passed to search_products as query"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 20},
        },
        "required": ["query", "quantity"],
    }
    # it buys: spend (asks the person first), under the manifest's grant and the cart scope
    assert (buy.effect, buy.auth, buy.scope) == ("spend", "grant", "cart:write")
    # the two actions the seed does not print are said, not fatal
    unknown = [d for d in got.diagnostics if d.code == "unknown-action"]
    assert [d.path for d in unknown] == [
        "$.flows[0].steps[0].action",
        "$.flows[0].steps[2].action",
    ]


def test_002_costs_as_printed() -> None:
    """The two cost forms of the field table, each on an action of the printed manifest."""
    manifest, *rest = seed_examples("002")
    costs = [c for c in rest if "currency" in c]
    assert costs == [{"field": "price", "currency": "USD"}, {"amount": 25, "currency": "USD"}]
    for cost in costs:
        spend = {
            "name": "buy_item",
            "method": "POST",
            "path": "/api/buy",
            "effect": "spend",
            "cost": cost,
            "input": {"type": "object", "properties": {"price": {"type": "number"}}},
        }
        got = read(manifest | {"actions": [*manifest["actions"], spend]}, "https://shop.example/")
        assert action(got, "buy_item").cost == cost
        assert action(got, "buy_item").auth == "grant"


def test_002_error_shape_is_not_a_manifest() -> None:
    """The error shape is what a call answers: served in place of a manifest, it is said to
    be an error response."""
    error = next(e for e in seed_examples("002") if "error" in e)
    assert set(error["error"]) == {"code", "message", "field", "retry_after"}
    got = read(error, "https://shop.example/.well-known/agent-actions.json")
    assert got.format == "unknown"
    assert got.diagnostics[0].message == "an error response, not a manifest"


# --- seed 001: Wildcard, printed as fragments --------------------------------------------


def test_001_fragments_read_as_wildcard() -> None:
    document = wildcard_document()
    assert "agentsJson" not in document and {"info", "sources", "flows"} <= document.keys()
    got = read(document, "https://alpaca.example/.well-known/agents.json")
    assert got.format == "wildcard-agents-json" and not errors(got)
    assert got.site_name == "Alpaca Trading and Market Data API Methods"
    trip = flow(got, "order_roundtrip")
    assert trip.title == "Place Order and Get Order Status"
    assert [s.action for s in trip.steps] == [
        "alpacatrading_post_order",
        "alpacatrading_get_order_by_order_i_d",
    ]
    # every link: eight flow parameters into the order, the order's id into the lookup
    assert trip.steps[0].bindings == {
        name: f"$input.{name}"
        for name in (
            "symbol",
            "side",
            "order_type",
            "time_in_force",
            "qty",
            "notional",
            "limit_price",
            "type",
        )
    }
    assert trip.steps[1].bindings == {"order_id": "$steps.0.id"}
    # the fields: parameters with their types, enums and required flags
    properties = trip.input_schema["properties"]
    assert properties["side"]["enum"] == ["buy", "sell"]
    assert properties["qty"]["type"] == "number"
    assert trip.input_schema["required"] == [
        "symbol",
        "side",
        "order_type",
        "time_in_force",
        "type",
    ]
    # both OpenAPI sources are named for the crawler to fetch
    assert [url.rsplit("/", 1)[-1] for url in got.references] == [
        "trading_openapi.yaml",
        "marketdata_openapi.yaml",
    ]


def test_001_with_the_key_reads_the_same() -> None:
    document = wildcard_document()
    url = "https://alpaca.example/.well-known/agents.json"
    with_key = read({"agentsJson": "0.1.0", **document}, url)
    assert read(document, url).model_dump() == with_key.model_dump()


# --- seed 000: Schema.org WebAPI ---------------------------------------------------------


def test_000_minimal_and_search_box() -> None:
    minimal, search_box, _full = seed_examples("000")[:3]
    got = read(minimal, "https://news.ycombinator.com/.well-known/agents.json")
    assert got.format == "schemaorg" and not errors(got)
    assert (got.site_name, got.site_description) == (
        "Hacker News",
        "Tech news aggregator with community voting",
    )
    got = read(search_box, "https://news.ycombinator.com/.well-known/agents.json")
    search = got.actions[0]
    assert (search.type, search.effect, search.method) == ("SearchAction", "read", "GET")
    assert search.endpoint == "https://hn.algolia.com/api/v1/search?query={search_term_string}"
    assert search.input_schema["required"] == ["search_term_string"]


def test_000_full_example_keeps_all_four_actions() -> None:
    full = seed_examples("000")[2]
    assert full["@type"] == "WebAPI"
    got = read(full, "https://news.ycombinator.com/.well-known/agents.json")
    assert [a.name for a in got.actions] == [
        "top-stories",
        "new-stories",
        "search",
        "submit-story",
    ]
    top = action(got, "top-stories")
    # a read action's object is what it reads: a list of stories with their fields
    assert (top.method, top.effect) == ("GET", "read")
    assert top.output_schema is not None and top.output_schema["type"] == "array"
    fields = top.output_schema["items"]["properties"]
    assert list(fields) == ["id", "title", "url", "score", "by", "time"]
    assert fields["id"] == {"type": "string", "description": "Story ID", "pattern": "[0-9]+"}
    assert top.input_schema["properties"] == {}
    assert action(got, "new-stories").endpoint == (
        "https://hacker-news.firebaseio.com/v0/newstories.json"
    )
    search = action(got, "search")
    assert search.input_schema["required"] == ["search_term_string"]
    submit = action(got, "submit-story")
    assert (submit.method, submit.effect) == ("POST", "write")
    assert submit.input_schema["required"] == ["title"]
    assert list(submit.input_schema["properties"]) == ["title", "url", "text"]
    assert submit.input_schema["x-content-type"] == "application/x-www-form-urlencoded"


def test_000_property_value_fields() -> None:
    """Every PropertyValue field of the seed's table becomes the JSON Schema keyword."""
    full = seed_examples("000")[2]
    create = json.loads(json.dumps(full["potentialAction"][3]))
    create["object"]["additionalProperty"] = [
        {"@type": "PropertyValue", "name": "title", "valueRequired": True, "valuePattern": ".+"},
        {"@type": "PropertyValue", "name": "rank", "minValue": 1, "maxValue": "30"},
        {"@type": "PropertyValue", "name": "kind", "defaultValue": "story"},
        {"@type": "PropertyValue", "name": "points", "minValue": 0, "defaultValue": "1"},
    ]
    got = read(full | {"potentialAction": [create]}, "https://news.ycombinator.com/")
    schema = action(got, "submit-story").input_schema
    assert schema["required"] == ["title"]
    assert schema["properties"]["title"]["pattern"] == ".+"
    assert schema["properties"]["rank"] | {} == {"type": "number", "minimum": 1, "maximum": 30}
    assert schema["properties"]["kind"] == {"type": "string", "default": "story"}
    assert schema["properties"]["points"] == {"type": "number", "minimum": 0, "default": 1}


def test_000_entry_point_method_defaults_to_get() -> None:
    """The seed's EntryPoint table: httpMethod "GET, POST, PUT, DELETE. Default: GET". The
    default is the method to call; the effect still comes from what the source states (a
    CreateAction is not a read because its EntryPoint leaves the method out)."""
    assert "GET, POST, PUT, DELETE. Default: GET" in seed_file("000").read_text(encoding="utf-8")
    full = seed_examples("000")[2]
    unstated = []
    for action_node in json.loads(json.dumps(full["potentialAction"])):
        action_node["target"].pop("httpMethod")
        unstated.append(action_node)
    got = read(full | {"potentialAction": unstated}, "https://news.ycombinator.com/")
    found = {a.name: (a.method, a.effect) for a in got.actions}
    assert found == {
        "top-stories": ("GET", "read"),
        "new-stories": ("GET", "read"),
        "search": ("GET", "read"),
        "submit-story": ("POST", "write"),  # its encodingType says a body is sent
    }
    create = unstated[3] | {"target": {"@type": "EntryPoint", "urlTemplate": "/submit"}}
    got = read(full | {"potentialAction": [create]}, "https://news.ycombinator.com/")
    assert (got.actions[0].method, got.actions[0].effect) == ("GET", "write")
    # contentType is the response's ("Response MIME type"): it says nothing about a body sent
    assert "contentType string no Response MIME type" in seed_file("000").read_text("utf-8")
    answered = {"@type": "EntryPoint", "urlTemplate": "/submit", "contentType": "application/json"}
    got = read(
        full | {"potentialAction": [create | {"target": answered}]}, "https://news.ycombinator.com/"
    )
    assert got.actions[0].method == "GET"


# --- seed 003: which Schema.org actions are executable, as far as reading goes -----------


def test_003_rules_the_reading_follows() -> None:
    """The seed's table: SearchAction, FindAction, ReadAction and ViewAction are idempotent
    (read), httpMethod absent means GET for them, and a level 1 variable is a hole in the URL
    (required). An OrderAction is not read, whatever its method."""
    text = seed_body("003")
    for rule in ("`SearchAction` , `FindAction` , `ReadAction` , `ViewAction`", "RFC 6570 level 1"):
        assert rule in text
    page = {
        "@context": "https://schema.org",
        "@type": "WebSite",
        "url": "https://food.example/",
        "potentialAction": [
            {
                "@type": ["SearchAction"],
                "target": "https://food.example/search?terms={search_term_string}",
                "query-input": "required name=search_term_string",
            },
            {
                "@type": "schema:FindAction",
                "name": "find_store",
                "target": {"urlTemplate": "https://food.example/stores/{postal_code}"},
            },
            {
                "@type": "ViewAction",
                "name": "view_label",
                "target": {"urlTemplate": "https://food.example/label{?lang}"},
            },
            {"@type": "ReadAction", "name": "read_item", "target": "https://food.example/i/{id}"},
            {"@type": "OrderAction", "name": "order_box", "target": "https://food.example/order"},
        ],
    }
    got = read(page, "https://food.example/")
    found = {a.name: (a.effect, a.method, a.input_schema.get("required")) for a in got.actions}
    assert found == {
        "search": ("read", "GET", ["search_term_string"]),
        "find_store": ("read", "GET", ["postal_code"]),
        "view_label": ("read", "GET", None),  # {?lang}: the URL stands without it
        "read_item": ("read", "GET", ["id"]),
        "order_box": ("spend", None, None),
    }


def test_002_version_is_read() -> None:
    """``version`` announces the format (no action shape needed); another version than 0.1
    is read as 0.1 and said."""
    example = seed_examples("002")[0]
    bare = {"version": example["version"], "site": "shop.example", "actions": []}
    assert read(bare, "https://shop.example/").format == "agent-actions"
    later = read(example | {"version": "agent-actions/0.2"}, "https://shop.example/")
    assert [d.code for d in later.diagnostics if d.severity == "info"] == ["unknown-version"]
    same = read(example, "https://shop.example/")
    assert "unknown-version" not in [d.code for d in same.diagnostics]


def test_002_endpoints_are_urls_on_public_hosts() -> None:
    """The middleware's ``endpoints``: each resolved against the site, a private address or
    something that is no URL left out and said (docs/RELIABILITY.md 19), at most 32 read."""
    example = seed_examples("002")[0]
    endpoints = {
        "receipts": "/agent/receipts",
        "refunds": {"url": "https://shop.example/agent/refunds"},
        "revocations": "http://10.0.0.7/revoke",
        "negotiation": "ftp://shop.example/negotiate",
        **{f"extra_{n}": f"/x/{n}" for n in range(40)},
    }
    got = read(example | {"endpoints": endpoints}, "https://shop.example/")
    assert got.endpoints["receipts"] == "https://shop.example/agent/receipts"
    assert got.endpoints["refunds"] == "https://shop.example/agent/refunds"
    assert "revocations" not in got.endpoints and "negotiation" not in got.endpoints
    assert len(got.endpoints) == 2 + 28  # the first 32 names read, two of them refused
    said = {d.path: d.code for d in got.diagnostics}
    assert said["$.endpoints.revocations"] == "private-endpoint"
    assert said["$.endpoints.negotiation"] == "invalid-endpoint"
    assert read(example, "https://shop.example/").model_dump().get("endpoints") is None
