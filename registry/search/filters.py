"""The query's filters (effect, type, site, format, method, auth, origin) as MUST / MUST_NOT
clauses: they select, never add to the score. ``term_query`` is one field's exact value."""

from __future__ import annotations

from collections.abc import Sequence

import tantivy

from registry.index.documents import SCHEMA
from registry.index.text import type_base
from registry.search.contract import FindQuery


def term_query(field_name: str, value: str) -> tantivy.Query:
    return tantivy.Query.term_query(SCHEMA, field_name, value)


def _any_of(field_name: str, values: Sequence[str]) -> tantivy.Query:
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, term_query(field_name, v)) for v in dict.fromkeys(values)]
    )


# How each ``origin`` selects on the ``same_origin`` field. Endpoints on another host are in
# default results (``any``), marked, and after a same-origin action of equal score
# (registry.search.sites); ``same`` is the strict view.
_ORIGIN_CLAUSES = {
    "same": [(tantivy.Occur.MustNot, "false")],
    "cross": [(tantivy.Occur.Must, "false")],
    "any": [],
}


def filter_clauses(query: FindQuery) -> list[tuple[tantivy.Occur, tantivy.Query]]:
    """The query's filters as MUST / MUST_NOT clauses: they select, never add to the score."""
    wanted: dict[str, Sequence[str]] = {
        "effect": query.effect,
        "type": [type_base(t).lower() for t in query.type],
        "domain": [s.lower().rstrip(".") for s in query.site],
        "format": query.format,
        "method": [m.upper() for m in query.method],
        "auth": query.auth,
    }
    clauses = [
        (tantivy.Occur.Must, _any_of(name, values)) for name, values in wanted.items() if values
    ]
    if query.live:
        clauses.append((tantivy.Occur.Must, term_query("live", "live")))
    return clauses + [
        (occur, term_query("same_origin", value)) for occur, value in _ORIGIN_CLAUSES[query.origins]
    ]
