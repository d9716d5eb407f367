"""A site's input schema is data (issue 25): planning a call never fetches what a ``$ref``
names (http, https, file://, relative to an ``$id``, ``$dynamicRef``), the action is refused
as not callable instead; the work of one check is bounded (registry.model.schema_bounds), and the
normaliser flags a schema prepare cannot use."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from registry.calls.check_budget import unique_items
from registry.calls.input_check import input_problems
from registry.calls.prepare import PrepareError, prepare_call
from registry.formats import normalise
from registry.model.schema_bounds import MAX_EXPANDED, MAX_REF_DEPTH, schema_problem
from registry.model.schemas import RawDocument
from tests.helpers.hostile_refs import (
    FILE_SECRET,
    SECRET,
    Listener,
    canary_file,
    ref_forms,
    watching,
)

FORMS = [
    "http",
    "https",
    "file",
    "relative",
    "relative-no-base",
    "$id-based",
    "$id-http",
    "$dynamicRef",
    "$dynamicRef-file",
]


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    return canary_file(tmp_path)


def action(schema: Any, **extra: Any) -> dict[str, Any]:
    return {
        "endpoint": "https://shop.example/api/t",
        "method": "POST",
        "effect": "write",
        "input_schema": schema,
    } | extra


def refused(act: dict[str, Any], value: dict[str, Any]) -> PrepareError:
    with pytest.raises(PrepareError) as caught:
        prepare_call(act, value)
    return caught.value


@pytest.mark.parametrize("form", FORMS)
def test_no_ref_is_ever_fetched(form: str, listener: Listener, canary: Path) -> None:
    """No connection (the listener counts none, the audit hook sees no socket.connect nor
    urllib.Request) and no read of the canary: the action is not callable, and says which
    reference is at fault."""
    schema = ref_forms(listener.port, canary)[form]
    before = listener.connections
    with watching(canary) as watch:
        error = refused(action(schema), {"t": "x"})
    assert watch.events == []
    assert listener.connections == before
    assert error.code == "not-callable"
    message = error.problems[0]["message"]
    assert "$ref" in message and "never fetched" in message, message
    assert SECRET not in str(error) and FILE_SECRET not in str(error)


@pytest.mark.parametrize("form", FORMS)
def test_the_normaliser_flags_an_unusable_schema(
    form: str, listener: Listener, canary: Path
) -> None:
    schema = ref_forms(listener.port, canary)[form]
    doc = {
        "schema": "agent-actions/0.1",
        "actions": [
            {"name": "t", "method": "POST", "path": "/api/t", "effect": "write", "input": schema},
            {
                "name": "fine",
                "method": "GET",
                "path": "/api/f",
                "effect": "read",
                "input": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        ],
    }
    with watching(canary) as watch:
        manifest = normalise(
            RawDocument(
                url="https://shop.example/agent-actions.json", body=json.dumps(doc).encode()
            )
        )
    assert watch.events == [] and listener.connections == 0
    flagged = [d for d in manifest.diagnostics if d.code == "unusable-schema"]
    assert [d.path for d in flagged] == ["$.actions[?(@.name=='t')]"]
    assert flagged[0].hint and [a.name for a in manifest.actions] == ["t", "fine"]


def test_refs_inside_the_schema_still_resolve() -> None:
    """$defs pointers, $anchor, an embedded $id and a recursive tree: all within the schema."""
    schema = {
        "$id": "https://shop.example/schemas/order",
        "type": "object",
        "$defs": {
            "sku": {"$anchor": "sku", "type": "string", "minLength": 3},
            "qty": {"$id": "qty", "type": "integer", "minimum": 1},
            "node": {
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    "name": {"type": "string"},
                },
            },
        },
        "properties": {
            "sku": {"$ref": "#sku"},
            "qty": {"$ref": "qty"},
            "tree": {"$ref": "#/$defs/node"},
        },
    }
    assert schema_problem(schema) is None
    assert (
        input_problems(
            schema,
            {
                "sku": "tin-9",
                "qty": 2,
                "tree": {"name": "a", "children": [{"name": "b", "children": []}]},
            },
        )
        == []
    )
    assert input_problems(schema, {"sku": "t", "qty": 0, "tree": {"children": [{"name": 5}]}}) == [
        {"path": "$.qty", "message": "0 is less than the minimum of 1"},
        {"path": "$.sku", "message": "'t' is too short"},
        {"path": "$.tree.children[0].name", "message": "5 is not of type 'string'"},
    ]


def test_a_pointer_onto_a_non_schema_is_refused() -> None:
    """A $ref landing on a string was a 500 (referencing read it as a schema)."""
    for target in ("hello", 5, None, ["a"]):
        schema = {
            "type": "object",
            "x-values": {"s": target},
            "properties": {"t": {"$ref": "#/x-values/s"}},
        }
        error = refused(action(schema), {"t": "x"})
        assert error.code == "not-callable"
        assert "'#/x-values/s'" in error.problems[0]["message"] and "not a schema" in str(error)


def _doubling(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {"d0": {"type": "string"}}
    for k in range(1, levels + 1):
        defs[f"d{k}"] = {"allOf": [{"$ref": f"#/$defs/d{k - 1}"}, {"$ref": f"#/$defs/d{k - 1}"}]}
    return {"type": "object", "$defs": defs, "properties": {"t": {"$ref": f"#/$defs/d{levels}"}}}


def test_doubling_references_are_refused_at_once() -> None:
    """2^18 nodes once expanded (15 s to check before): refused by the expansion bound, in
    prepare and when normalised; 2^10 is within it and still checked."""
    start = time.perf_counter()
    error = refused(action(_doubling(18)), {"t": "x"})
    assert time.perf_counter() - start < 0.5
    assert error.code == "not-callable"
    assert f"more than {MAX_EXPANDED} nodes" in error.problems[0]["message"]
    assert prepare_call(action(_doubling(10)), {"t": "x"})["method"] == "POST"
    doc = {
        "schema": "agent-actions/0.1",
        "actions": [
            {
                "name": "t",
                "method": "POST",
                "path": "/api/t",
                "effect": "write",
                "input": _doubling(18),
            }
        ],
    }
    manifest = normalise(
        RawDocument(url="https://shop.example/agent-actions.json", body=json.dumps(doc).encode())
    )
    assert [d.code for d in manifest.diagnostics] == ["unusable-schema"]


def test_reference_chains_and_loops_are_bounded() -> None:
    chain = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(MAX_REF_DEPTH + 5)}
    deep = {
        "$defs": {**chain, f"d{MAX_REF_DEPTH + 5}": {"type": "string"}},
        "properties": {"t": {"$ref": "#/$defs/d0"}},
    }
    assert f"more than {MAX_REF_DEPTH} deep" in (schema_problem(deep) or "")
    loop = {
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}},
        "properties": {"t": {"$ref": "#/$defs/a"}},
    }
    error = refused(action(loop), {"t": "x"})
    assert error.code == "not-callable" and "refers back to itself" in str(error)
    big = {"type": "object", "description": "x" * (64 * 1024)}
    assert refused(action(big), {}).code == "not-callable"


def test_unique_items_is_linear_and_keeps_json_equality() -> None:
    """4,000 mixed items took 5 s (jsonschema compares every pair); 1 and 1.0 are one value,
    true and 1 are not, nor are objects told apart by their key order."""
    schema = {"type": "object", "properties": {"t": {"type": "array", "uniqueItems": True}}}
    kinds = (lambda i: i, str, lambda i: [i], lambda i: {"k": i}, lambda i: i + 0.5)
    mixed = [kinds[i % 5](i) for i in range(6_000)]
    start = time.perf_counter()
    assert prepare_call(action(schema), {"t": mixed})["method"] == "POST"
    assert time.perf_counter() - start < 1

    def problems(items: list[Any]) -> list[str]:
        return [p["message"] for p in input_problems(schema, {"t": items})]

    assert problems([1, 1.0]) == ["has non-unique elements: item 1 repeats item 0"]
    assert problems([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}]) != []
    assert problems([1, True]) == problems([0, False]) == problems([[1], [True]]) == []
    assert problems(["1", 1, None, False, 0, [], {}]) == []
    assert problems([[1, 2], [2, 1]]) == []


def test_unique_items_matches_jsonschema() -> None:
    """The same verdict as jsonschema's own uniqueItems on tricky pairs."""
    from jsonschema import Draft202012Validator

    pairs = [
        [1, 1.0],
        [True, 1],
        [False, 0],
        [[1], [1.0]],
        [{"a": True}, {"a": 1}],
        [{"a": 1}, {"a": 1.0}],
        ["a", "a"],
        [None, None],
        [[], {}],
        [0.5, 0.5],
    ]
    for items in pairs:
        theirs = not Draft202012Validator({"uniqueItems": True}).is_valid(items)
        ours = any(unique_items(Draft202012Validator({}), True, items, {}))
        assert ours == theirs, items


def test_a_check_past_its_budget_is_too_complex() -> None:
    """An anyOf of 40 over 6,000 items: 246,000 keyword evaluations, past MAX_STEPS (or,
    on a busy machine, past TIME_BUDGET first)."""
    schema = {
        "type": "object",
        "properties": {
            "t": {"type": "array", "items": {"anyOf": [{"const": f"v{i}"} for i in range(40)]}}
        },
    }
    start = time.perf_counter()
    error = refused(action(schema), {"t": ["v39"] * 6000})
    assert time.perf_counter() - start < 4
    assert error.code == "too-complex"
    assert error.problems[0]["message"].startswith("checking the input takes more than ")


@pytest.mark.parametrize("amount", ["1e309", "nan", "inf", "-inf", "Infinity"])
def test_a_non_finite_cost_is_refused(amount: str) -> None:
    """float() reads these; the amount was answered as NaN or infinity (a 500 over REST)."""
    schema = {"type": "object", "properties": {"amount": {"type": "string"}}}
    error = refused(action(schema, cost={"field": "amount", "currency": "EUR"}), {"amount": amount})
    assert error.code == "invalid-input"
    assert error.problems == [
        {"path": "$.amount", "message": "the cost is this field's amount: give a number >= 0"}
    ]


def test_a_subschema_naming_its_dialect_is_checked_the_same_way() -> None:
    """A "$schema" inside made jsonschema switch to its stock validator for that part: the
    quadratic uniqueItems again, no budget, and patterns (renamed for RE2) not checked."""
    kinds = (lambda i: i, str, lambda i: [i], lambda i: {"k": i}, lambda i: i + 0.5)
    for dialect in (
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2020-12/schema",
    ):
        schema = {
            "type": "object",
            "properties": {
                "t": {"$schema": dialect, "type": "array", "uniqueItems": True},
                "p": {"$schema": dialect, "type": "string", "pattern": "^a+$"},
            },
        }
        start = time.perf_counter()
        found = input_problems(schema, {"t": [kinds[i % 5](i) for i in range(6000)], "p": "b"})
        assert time.perf_counter() - start < 1, dialect
        assert found == [{"path": "$.p", "message": "'b' does not match '^a+$'"}], dialect


def test_patterns_a_ref_reaches_run_in_re2() -> None:
    """A $ref into a keyword of the site's own (where the RE2 rewrite does not look) ran
    "pattern" and "patternProperties" in Python's backtracking re: 2^30 steps here."""
    schema = {
        "type": "object",
        "x-parts": {
            "s": {"type": "string", "pattern": "^(a+)+$"},
            "o": {
                "type": "object",
                "patternProperties": {"^(a+)+$": {"type": "integer"}},
                "additionalProperties": False,
            },
        },
        "properties": {"t": {"$ref": "#/x-parts/s"}, "o": {"$ref": "#/x-parts/o"}},
    }
    evil = "a" * 30 + "!"
    start = time.perf_counter()
    found = input_problems(schema, {"t": evil, "o": {evil: 1, "aa": "x"}})
    assert time.perf_counter() - start < 1
    assert found == [
        {"path": "$.o", "message": f"additional properties are not allowed ({evil!r})"},
        {"path": "$.o.aa", "message": "'x' is not of type 'integer'"},
        {"path": "$.t", "message": f"{evil!r} does not match '^(a+)+$'"},
    ]
