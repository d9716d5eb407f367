"""Explore (ARD section 5.3.3): facet counts over a query's matched set.

With ``text`` the matched set is Search's (its window is the relevance cutoff); without, the
whole store: our entries are counted by SQL GROUP BY when every facet and filter is on a
stored column (``type``, ``publisher``, effect, format, method, auth, site), and the rows of
ARD catalogs (whose entries are the publishers') one by one; any other facet or filter reads
every entry, up to MAX_EXPLORE rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from registry.ard import entries, match
from registry.ard.bodies import ExploreRequest
from registry.ard.entries import Item
from registry.ard.listing import COLUMNS, in_sql, scan
from registry.ard.rows import ENTRIES, E
from registry.ard.service import candidates
from registry.formats import ard as ard_format
from registry.index import ActionIndex
from registry.model import ard_terms as terms

MAX_EXPLORE = 200_000


def _paths(wanted: list[Any], context: Any) -> list[tuple[Any, str, tuple[str, ...], Any]]:
    prefixes = match.query_prefixes(context)
    return [
        (f, *match.resolve(f.field, prefixes), match.unbound(f.field, prefixes)) for f in wanted
    ]


def _count(items: Iterator[Item], paths: list[Any], counts: dict[str, Counter[str]]) -> None:
    for it in items:
        for facet, iri, rest, literal in paths:
            counts[facet.field].update(set(match.values_at(it, iri, rest, literal)))


def _ranked(counts: dict[str, Counter[str]], wanted: list[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for facet in wanted:
        ranked = sorted(
            ((v, c) for v, c in counts[facet.field].items() if c >= facet.minCount),
            key=lambda vc: (-vc[1], vc[0]),
        )
        result: dict[str, Any] = {
            "buckets": [{"value": v, "count": c} for v, c in ranked[: facet.limit]]
        }
        if len(ranked) > facet.limit:
            result["otherCount"] = sum(c for _, c in ranked[facet.limit :])
        found[facet.field] = result
    return found


def _in_sql(iri: str, rest: tuple[str, ...]) -> Any:
    """The column a facet counts by in SQL (``type`` and ``publisher``: their own rule)."""
    if rest:
        return None
    if iri in (match.TYPE, match.PUBLISHER):
        return iri
    name = iri.removeprefix(terms.ACTIONDEX_NS)
    return COLUMNS.get(name) if name != iri else None


def _counted(
    session: Session,
    conditions: list[Any],
    paths: list[Any],
    counts: dict[str, Counter[str]],
    base_url: str,
) -> None:
    """Counts over the whole store: our entries (actions and flows) by SQL GROUP BY, the rows
    of ARD catalogs (whose entries are the publishers') one by one; a store holds few."""
    ours = [*conditions, E.format.is_distinct_from(ard_format.NAME)]
    for facet, iri, rest, _ in paths:
        column = _in_sql(iri, rest)
        if isinstance(column, str):  # type and publisher: the entry's kind, its site
            column = E.kind if column == match.TYPE else E.host
        grouped = select(column, func.count()).where(*ours).group_by(column)
        for value, n in session.execute(grouped.select_from(ENTRIES)):
            if value is None:
                continue
            if iri == match.TYPE:
                key = entries.TYPES[value]
            else:
                key = value.split(":")[0] if iri == match.PUBLISHER else str(value)
            counts[facet.field][key] += n
    theirs = [*conditions, E.format == ard_format.NAME]
    _count(
        (
            it
            for _, it in scan(session, theirs, [], None, [E.id], 0, MAX_EXPLORE, base_url)
            if it is not None
        ),
        paths,
        counts,
    )


def explore(
    index: ActionIndex, session: Session, request: ExploreRequest, base_url: str
) -> dict[str, Any]:
    query = request.query
    context = query.context if query else None
    found = match.clauses(query.filter, context) if query else []
    wanted = request.resultType.facets
    paths = _paths(wanted, context)
    counts: dict[str, Counter[str]] = {f.field: Counter() for f in wanted}
    conditions, rest = in_sql(found)
    if query is not None and query.text:
        items = (it for it, _ in candidates(index, session, query.text, found, base_url))
        _count(_once(items), paths, counts)
    elif not rest and all(_in_sql(iri, r) is not None for _, iri, r, _ in paths):
        _counted(session, conditions, paths, counts, base_url)
    else:
        _count(
            _once(
                it
                for _, it in scan(
                    session, conditions, rest, None, [E.kind, E.id], 0, MAX_EXPLORE, base_url
                )
                if it is not None
            ),
            paths,
            counts,
        )
    return {"resultType": "facets", "facets": _ranked(counts, wanted)}


def _once(items: Iterator[Item]) -> Iterator[Item]:
    seen: set[str] = set()
    for it in items:
        if it.identifier not in seen:
            seen.add(it.identifier)
            yield it
