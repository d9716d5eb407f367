"""Schemathesis hooks for tests/api/test_openapi.py (loaded through SCHEMATHESIS_HOOKS).

Not sent: POST /validate's URL form with a URL it would fetch, the one thing that cannot work
offline (a child `actiondex validate` crawls the site). URL forms the route refuses before
fetching are sent. The Examples phase sends the OpenAPI document's own URL example whatever
``filter_case`` says; its time is a DNS lookup that fails offline (seconds, more on a loaded
machine), so only its response-time check is not counted.

Sent, but not counted as "schema-violating request accepted": POST /validate bodies that are
no JSON value (broken syntax under application/json, an object "as" text/html). The route
is a validator: whatever bytes it gets, it answers 200 with a report that names the problem
(``json-parse-error``, ``unknown-format``), as documented; every other check still applies.

Sent, but not counted as "schema-valid request rejected" (a 422 the schema cannot foresee):
- POST /actions/{id}/prepare answering ``invalid-input`` or ``not-callable``: the body's
  schema is the same for every action, but each action's input schema (data, not the API's
  contract) decides whether an ``input`` is valid for it;
- GET /sites answering ``invalid-parameter`` for ``cursor``: a cursor is an opaque token the
  registry hands out; the schema states its alphabet and length, not which tokens it made;
- POST /submissions answering ``refused``: whether the crawler's address guard accepts a URL
  (a public host, a web port) is policy, not a shape a schema can state.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

from api.routes.validate import fetch_target

NEGATIVE_ACCEPTED = "ST201"
POSITIVE_REJECTED = "ST202"
SLOW = "ST112"  # response time limit


def _json(body: Any) -> tuple[bool, Any]:
    """(whether ``body`` is a JSON value as the route reads it, that value)."""
    if not isinstance(body, bytes | str):
        return True, body
    try:
        return True, json.loads(body)
    except ValueError:
        return False, None


def fetches(body: Any) -> bool:
    """Whether POST /validate would fetch for ``body``: JSON whatever the Content-Type."""
    _, value = _json(body)
    return (
        isinstance(value, dict) and set(value) == {"url"} and fetch_target(value["url"]) is not None
    )


def _not_a_document(case: Any) -> bool:
    textual = (case.media_type or "").startswith(("text/", "application/yaml"))
    if textual:
        return not isinstance(case.body, bytes | str)
    return not _json(case.body)[0]


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    return not fetches(case.body)


def _error(response: Any) -> dict[str, Any]:
    try:
        error = json.loads(response.content)["error"]
    except (ValueError, KeyError, TypeError):
        return {}
    return error if isinstance(error, dict) else {}


def _data_dependent(case: Any, response: Any) -> bool:
    """A 422 that depends on the store's data, not on the request's shape."""
    if response.status_code != 422:
        return False
    error = _error(response)
    if case.operation.path == "/actions/{id}/prepare":
        return error.get("code") in ("invalid-input", "not-callable")
    if case.operation.path == "/submissions":
        return error.get("code") == "refused"
    return case.operation.path == "/sites" and error.get("field") == "cursor"


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    validator = case.operation.path == "/validate"
    if validator and failure.code == NEGATIVE_ACCEPTED and _not_a_document(case):
        return False
    if validator and failure.code == SLOW and fetches(case.body):
        return False  # the OpenAPI example's URL form, which the Examples phase sends anyway
    return not (failure.code == POSITIVE_REJECTED and _data_dependent(case, response))
