"""Schemathesis hooks for tests/api/test_openapi.py (loaded through SCHEMATHESIS_HOOKS).

Not sent: POST /validate's URL form with a URL it would fetch, the one thing that cannot work
offline (a child `actiondex validate` crawls the site). URL forms the route refuses before
fetching are sent.

Sent, but not counted as "schema-violating request accepted": POST /validate bodies that are
no JSON value (broken syntax under application/json, an object "as" text/html). The route
is a validator: whatever bytes it gets, it answers 200 with a report that names the problem
(``json-parse-error``, ``unknown-format``), as documented; every other check still applies.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

from api.routes.validate import fetch_target

NEGATIVE_ACCEPTED = "ST201"


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
    return (isinstance(value, dict) and set(value) == {"url"}
            and fetch_target(value["url"]) is not None)


def _not_a_document(case: Any) -> bool:
    textual = (case.media_type or "").startswith(("text/", "application/yaml"))
    if textual:
        return not isinstance(case.body, bytes | str)
    return not _json(case.body)[0]


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    return not fetches(case.body)


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    validator = case.operation.path == "/validate"
    return not (validator and failure.code == NEGATIVE_ACCEPTED and _not_a_document(case))
