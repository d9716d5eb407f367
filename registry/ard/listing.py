"""List (ARD section 5.3.5): a deterministic scan of the store.

List reads Appendix A's filter expression (``type = 'a,b' AND publisherId = 'x'``: AND across
fields, commas OR within one; any filter key of Search also works, with ``=``), ordered by
``orderBy``. Our terms (effect, method, format, auth, site), ``createdAfter`` and
``updatedAfter`` filter in SQL; the others are applied per item, reading at most MAX_SCAN
rows a request (a page may then come back short, with a ``pageToken`` to go on). ``scan``
is shared with Explore (registry.ard.explore).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import false, func, select
from sqlalchemy.orm import Session

from registry.ard import entries, match
from registry.ard.entries import Item
from registry.ard.rows import E, row_fact, rows
from registry.ard.service import Invalid, Sites

BATCH, MAX_SCAN = 500, 5_000
COLUMNS = {
    "effect": E.effect,
    "method": E.method,
    "auth": E.auth,
    "format": E.format,
    "site": E.host,
}
_ORDER = {
    "displayName": (E.title,),
    "identifier": (E.host, E.kind, E.name),
    "updatedAt": (E.fetched_at,),
    "createdAt": (E.created_at,),
}
_DATES = {"createdAfter": E.created_at, "updatedAfter": E.fetched_at}
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


def in_sql(found: list[match.Clause]) -> tuple[list[Any], list[match.Clause]]:
    """SQL conditions for the clauses on our stored terms, and the clauses left."""
    conditions, rest = [], []
    for clause in found:
        column = COLUMNS.get(clause.fact or "")
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
            found += match.clauses(
                {"publisher" if key == "publisherId" else key: values}, bounded=False
            )
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
        raise Invalid(
            f"cannot order by {text[:80]!r}: use {', '.join(_ORDER)}, each with "
            "ASC or DESC, separated by commas"
        )
    columns: list[Any] = []
    for part in (text or "").split(",") if text else []:
        field, *direction = part.split()  # the pattern allows only ASCII spaces
        down = direction == ["DESC"] or direction == ["desc"]
        columns += [c.desc() if down else c.asc() for c in _ORDER[field]]
    # By default actions, then flows, each by id.
    return [*columns, E.kind.asc(), E.id.asc()]


def scan(
    session: Session,
    conditions: list[Any],
    rest: list[match.Clause],
    name: str | None,
    ordering: list[Any],
    start: int,
    limit: int,
    base_url: str,
) -> Iterator[tuple[int, Item | None]]:
    """(rows read so far, the row's item if it matches, else None) from row ``start`` on,
    ``limit`` rows at most: one query, streamed."""
    sites = Sites(session)
    query = rows(conditions).order_by(*ordering).offset(start).limit(limit)
    for n, row in enumerate(session.execute(query).yield_per(BATCH), start + 1):
        fact = row_fact(row)
        it = entries.item(fact, sites(fact["site"]), base_url)
        label = str(it.entry.get("displayName", "")).lower()
        ok = match.matches(it, rest) and (name is None or name in label)
        yield n, it if ok else None


def list_entries(
    session: Session,
    filter_text: str | None,
    order_by: str | None,
    size: int,
    token: str | None,
    base_url: str,
) -> dict[str, Any]:
    conditions, rest, name = expression(filter_text)
    ordering, start = order(order_by), int(token or 0)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    read, more = start, False
    for n, it in scan(session, conditions, rest, name, ordering, start, MAX_SCAN + 1, base_url):
        if len(items) == size or n > start + MAX_SCAN:
            more = True  # a row past the page, or past the rows one request reads
            break
        read = n
        if it is not None and it.identifier not in seen:
            seen.add(it.identifier)
            items.append(it.entry)
    body: dict[str, Any] = {"items": items}
    if not rest and name is None:
        counted = rows(conditions).subquery()
        body["total"] = session.scalar(select(func.count()).select_from(counted))
    if more:
        body["pageToken"] = str(read)
    return body
