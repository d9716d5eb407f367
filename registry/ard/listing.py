"""List and Explore (ARD sections 5.3.5, 5.3.3): deterministic scans of the store.

List reads Appendix A's filter expression (``type = 'a,b' AND publisherId = 'x'``: AND across
fields, commas OR within one; any filter key of Search also works, with ``=``), ordered by
``orderBy``. Our terms (effect, method, format, auth, site), ``createdAfter`` and
``updatedAfter`` filter in SQL; the others are applied per item, reading at most MAX_SCAN
rows a request (a page may then come back short, with a ``pageToken`` to go on). Explore
counts facets over a query's matched set: with ``text``, Search's window; without, the whole
store up to MAX_EXPLORE rows (the README says what that costs).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, false, func, select
from sqlalchemy.orm import Session

from registry.ard import entries, match
from registry.ard.entries import Item
from registry.ard.model import ExploreRequest
from registry.ard.service import Invalid, Sites, candidates, row_fact
from registry.index import ActionIndex
from registry.models import ActionRow, Document, Site

BATCH, MAX_SCAN, MAX_EXPLORE = 500, 5_000, 200_000
_COLUMNS = {"effect": ActionRow.effect, "method": ActionRow.method, "auth": ActionRow.auth,
            "format": Document.format, "site": Site.host}
_ORDER = {"displayName": (ActionRow.title,), "identifier": (Site.host, ActionRow.name),
          "updatedAt": (Document.fetched_at,), "createdAt": (Site.created_at,)}
_DATES = {"createdAfter": Site.created_at, "updatedAfter": Document.fetched_at}
# The grammars, as patterns the OpenAPI document shows: a List request that matches them is
# always answered (a date that is no date matches nothing), one that does not is a 400.
# Whitespace spelled out, as in registry.search.contract: ECMA's \s is not Python's.
_S, _NOT_S = r"[ \t\n\r\f\v]", r"""[^ \t\n\r\f\v'"]"""
_KEY = "[A-Za-z0-9_.:@/#-]{1,200}"
_VALUE = f"""(?:'[^']{{0,512}}'|"[^"]{{0,512}}"|{_NOT_S}{{1,512}})"""
_CLAUSE = f"(?:(?:createdAfter|updatedAfter){_S}*>=?|{_KEY}{_S}*=){_S}*{_VALUE}"
_AND = f"{_S}+(?:AND|and){_S}+"
FILTER_PATTERN = f"^{_S}*{_CLAUSE}(?:{_AND}{_CLAUSE})*{_S}*$"
_FIELD = f"(?:{'|'.join(_ORDER)})(?:{_S}+(?:ASC|DESC|asc|desc))?"
ORDER_PATTERN = f"^{_S}*{_FIELD}(?:{_S}*,{_S}*{_FIELD})*{_S}*$"
_PARTS = re.compile(f"({_KEY}){_S}*(>=?|=){_S}*({_VALUE})")


def _rows(conditions: list[Any]) -> Select[Any]:
    return (select(ActionRow, Site.host, Document.url, Document.format)
            .join(Site, Site.id == ActionRow.site_id)
            .join(Document, Document.id == ActionRow.document_id).where(*conditions))


def in_sql(found: list[match.Clause]) -> tuple[list[Any], list[match.Clause]]:
    """SQL conditions for the clauses on our stored terms, and the clauses left."""
    conditions, rest = [], []
    for clause in found:
        column = _COLUMNS.get(clause.fact or "")
        if column is None:
            rest.append(clause)
        else:
            conditions.append(column.in_(sorted(clause.values)))
    return conditions, rest


def expression(text: str | None) -> tuple[list[Any], list[match.Clause], str | None]:
    """(SQL conditions, clauses left, displayName wanted) of a List filter expression."""
    if text is None:
        return [], [], None
    if not re.fullmatch(FILTER_PATTERN, text):
        raise Invalid("cannot read the filter: write field = 'value' AND field = 'a,b'")
    conditions: list[Any] = []
    found, name = [], None
    for key, _, quoted in _PARTS.findall(text):
        value = quoted[1:-1] if quoted[:1] in ("'", '"') else quoted
        if key in _DATES:
            moment = _date(value)
            conditions.append(_DATES[key] > moment if moment else false())
        elif key == "displayName":
            name = value.lower()
        else:
            values = [v.strip() for v in value.split(",") if v.strip()]
            found += match.clauses({"publisher" if key == "publisherId" else key: values},
                                   bounded=False)
    sql, rest = in_sql(found)
    return conditions + sql, rest, name


def _date(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    # Stored as naive UTC.
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def order(text: str | None) -> list[Any]:
    if text is not None and not re.fullmatch(ORDER_PATTERN, text):
        raise Invalid(f"cannot order by {text[:80]!r}: use {', '.join(_ORDER)}, each with "
                      "ASC or DESC, separated by commas")
    columns: list[Any] = []
    for part in (text or "identifier").split(","):
        field, *direction = part.split()  # the pattern allows only ASCII spaces
        down = direction == ["DESC"] or direction == ["desc"]
        columns += [c.desc() if down else c.asc() for c in _ORDER[field]]
    return [*columns, ActionRow.id.asc()]


def scan(session: Session, conditions: list[Any], rest: list[match.Clause], name: str | None,
         ordering: list[Any], start: int, limit: int, base_url: str
         ) -> Iterator[tuple[int, Item | None]]:
    """(rows read so far, the row's item if it matches, else None) from row ``start`` on,
    ``limit`` rows at most."""
    sites = Sites(session)
    query = _rows(conditions).order_by(*ordering)
    for offset in range(start, start + limit, BATCH):
        rows = session.execute(query.offset(offset).limit(min(BATCH, start + limit - offset))
                               ).all()
        for n, row in enumerate(rows, offset + 1):
            fact = row_fact(*row)
            it = entries.item(fact, sites(fact["site"]), base_url)
            label = str(it.entry.get("displayName", "")).lower()
            ok = match.matches(it, rest) and (name is None or name in label)
            yield n, it if ok else None
        if len(rows) < BATCH:
            return


def list_entries(session: Session, filter_text: str | None, order_by: str | None, size: int,
                 token: str | None, base_url: str) -> dict[str, Any]:
    conditions, rest, name = expression(filter_text)
    ordering, start = order(order_by), int(token or 0)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    read = start
    for n, it in scan(session, conditions, rest, name, ordering, start, MAX_SCAN, base_url):
        read = n
        if it is not None and it.identifier not in seen:
            seen.add(it.identifier)
            items.append(it.entry)
            if len(items) == size:
                break
    # More rows past the last one read: a next page (it may hold no match).
    more = session.execute(_rows(conditions).order_by(*ordering).offset(read).limit(1)
                           ).first() is not None
    body: dict[str, Any] = {"items": items}
    if not rest and name is None:
        body["total"] = session.scalar(select(func.count()).select_from(
            _rows(conditions).subquery()))
    if more:
        body["pageToken"] = str(read)
    return body


def facets(items: Iterator[Item], wanted: list[Any], context: Any) -> dict[str, Any]:
    """``{field: {buckets, otherCount}}`` over ``items`` for each requested facet."""
    prefixes = match.query_prefixes(context)
    paths = [(f, *match.resolve(f.field, prefixes), match.unbound(f.field, prefixes))
             for f in wanted]
    counts: dict[str, Counter[str]] = {f.field: Counter() for f in wanted}
    for it in items:
        for facet, iri, rest, literal in paths:
            counts[facet.field].update(set(match.values_at(it, iri, rest, literal)))
    found: dict[str, Any] = {}
    for facet in wanted:
        ranked = sorted(((v, c) for v, c in counts[facet.field].items()
                         if c >= facet.minCount), key=lambda vc: (-vc[1], vc[0]))
        result: dict[str, Any] = {"buckets": [{"value": v, "count": c}
                                              for v, c in ranked[:facet.limit]]}
        if len(ranked) > facet.limit:
            result["otherCount"] = sum(c for _, c in ranked[facet.limit:])
        found[facet.field] = result
    return found


def explore(index: ActionIndex, session: Session, request: ExploreRequest,
            base_url: str) -> dict[str, Any]:
    query = request.query
    found = match.clauses(query.filter, query.context) if query else []
    if query is not None and query.text:
        items = (it for it, _ in candidates(index, session, query.text, found, base_url))
    else:
        conditions, rest = in_sql(found)
        items = (it for _, it in scan(session, conditions, rest, None, [ActionRow.id], 0,
                                      MAX_EXPLORE, base_url) if it is not None)
    context = query.context if query else None
    return {"resultType": "facets",
            "facets": facets(_once(items), request.resultType.facets, context)}


def _once(items: Iterator[Item]) -> Iterator[Item]:
    seen: set[str] = set()
    for it in items:
        if it.identifier not in seen:
            seen.add(it.identifier)
            yield it
