"""Search and Retrieve (ARD section 5.3.2, 5.3.4) over the action index and the store.

Search builds the same ``FindQuery`` as GET /find: the filters the index holds (effect,
method, format, auth, site, Schema.org type) go into it, the rest are applied to each item
after. Candidates are read in pages of MAX_LIMIT, up to the offsets FindQuery allows, so a
query's matched set is at most WINDOW items: that is the relevance cutoff, the same for
Explore's facets. Scores map BM25 onto 0-100 (``score``), never rising down the list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import ValidationError
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from registry.ard import entries, match
from registry.ard.entries import Item
from registry.ard.published import SiteEntries, site_entries
from registry.ard.rows import entry_fact
from registry.db.tables import Document, Site
from registry.formats import ard as ard_format
from registry.index import ActionIndex
from registry.index.text import type_base
from registry.model import ard_terms as terms
from registry.model.bounds import HOST_PATTERN
from registry.model.schemas import AUTHS, EFFECTS
from registry.search import MAX_LIMIT, MAX_OFFSET, FindQuery, first_problem, search
from registry.search.contract import FORMAT_NAMES, METHOD_NAMES, TOKEN_PATTERN, TYPE_NAMES

WINDOW = MAX_OFFSET + MAX_LIMIT  # candidates one query can reach (in pages of MAX_LIMIT)
# score = 100 * s / (s + HALF): a BM25 score of HALF maps to 50. Typical scores of a good
# match on our index run 8-40 (two or three query words met in name and description).
HALF = 10.0
_TYPES = {type_base(name).lower() for name in TYPE_NAMES}
# Which of our terms FindQuery filters on, and which values it can take (another value
# matches nothing, as in List).
_TOKEN, _HOST = re.compile(TOKEN_PATTERN).fullmatch, re.compile(HOST_PATTERN).fullmatch
_PUSHED: dict[str, tuple[str, Callable[[str], object]]] = {
    "effect": ("effect", set(EFFECTS).__contains__),
    "auth": ("auth", set(AUTHS).__contains__),
    "method": ("method", lambda v: v.upper() in METHOD_NAMES),
    "format": ("format", set(FORMAT_NAMES).__contains__),
    "actionType": ("type", lambda v: bool(_TOKEN(v)) and type_base(v).lower() in _TYPES),
    "site": ("site", _HOST),
}


NONE = SiteEntries()


class NotFound(LookupError):
    """No entry has this identifier."""


class Invalid(ValueError):
    """A request that cannot be answered as asked (400 INVALID_ARGUMENT)."""


def score(bm25: float) -> int:
    return max(0, min(100, round(100 * bm25 / (bm25 + HALF)))) if bm25 > 0 else 0


def find_query(
    text: str, found: list[match.Clause]
) -> tuple[dict[str, Any] | None, list[match.Clause]]:
    """FindQuery's arguments for ``text`` and the clauses it can filter on, and the clauses
    left to apply after; None when a pushed clause can match nothing."""
    args: dict[str, Any] = {"q": text, "origin": "same"}
    rest = []
    for clause in found:
        name = clause.fact
        if name not in _PUSHED:
            rest.append(clause)
            continue
        field, valid = _PUSHED[name]
        values = sorted(v for v in clause.values if valid(v))
        if not values:
            return None, rest
        args[field] = values
        if name == "site":  # FindQuery's site also takes subdomains: check it exactly after
            rest.append(clause)
    return args, rest


class Sites:
    """Publisher entries per host, read once per request; hosts without an ARD document (most)
    are known from one query up front and cost nothing more."""

    def __init__(self, session: Session) -> None:
        self.session, self.seen = session, dict[str, SiteEntries]()
        self.publishing = set(
            session.scalars(
                select(Site.host)
                .join(Document, Document.site_id == Site.id)
                .where(Document.format == ard_format.NAME)
                .distinct()
            )
        )

    def __call__(self, host: str) -> SiteEntries:
        if host not in self.publishing:
            return NONE
        if host not in self.seen:
            self.seen[host] = site_entries(self.session, host)
        return self.seen[host]


def candidates(
    index: ActionIndex,
    session: Session,
    text: str,
    found: list[match.Clause],
    base_url: str,
    want: int = WINDOW,
) -> Iterator[tuple[Item, int]]:
    """(item, score) in rank order: the query's matched set, duplicates left out. ``want``:
    the page size the caller reads in, so a page costs no more hits than it needs when every
    filter is the index's."""
    try:
        args, rest = find_query(text, found)
        if args is None:
            return
        step = MAX_LIMIT if rest else max(1, min(MAX_LIMIT, want))
        first = FindQuery(**args, limit=step)
    except ValidationError as exc:
        raise Invalid("; ".join(first_problem(exc.errors()))) from exc
    sites, seen, floor = Sites(session), set(), 100
    for offset in range(0, MAX_OFFSET + 1, step):
        page = search(index, first.model_copy(update={"offset": offset}))
        for hit in page.hits:
            fact = entries.facts(json.loads(hit.payload))
            it = entries.item(fact, sites(fact["site"]), base_url)
            if it.identifier in seen or not match.matches(it, rest):
                continue
            seen.add(it.identifier)
            floor = min(floor, score(hit.score))
            yield it, floor
        if len(page.hits) < step:
            return


def search_entries(
    index: ActionIndex,
    session: Session,
    text: str,
    found: list[match.Clause],
    size: int,
    token: str | None,
    base_url: str,
    source: str,
) -> dict[str, Any]:
    """One page of results; ``source`` is this registry's ARD base URL."""
    start = int(token or 0)
    page: list[dict[str, Any]] = []
    more = False
    # The hits are read in pages of the page size, as GET /find pages them: the same for
    # every page of one size, so per-site grouping orders them as /find does each time.
    for n, (it, value) in enumerate(candidates(index, session, text, found, base_url, size)):
        if n >= start + size:
            more = True
            break
        if n >= start:
            page.append({**it.entry, "score": value, "source": source})
    body: dict[str, Any] = {"results": page}
    if more:
        body["pageToken"] = str(start + size)
    return body


def retrieve(session: Session, urn: str, base_url: str) -> dict[str, Any]:
    """The complete entry with this exact identifier, publisher-written first."""
    who = terms.publisher(urn)
    labels = who.split(".")
    parents = [".".join(labels[i:]) for i in range(len(labels))]
    hosts = session.scalars(
        select(Site.host).where(
            or_(Site.host.in_(parents), Site.host.like(f"%.{who}"), Site.host.like(f"{who}:%"))
        )
    ).all()
    for host in sorted(hosts):
        written = site_entries(session, host).by_identifier.get(urn)
        if written is not None:
            return written
    ours = entries.split_identifier(urn)
    if ours is not None:
        fact = entry_fact(session, *ours)
        if fact is not None:
            return entries.ours(fact, base_url)
    raise NotFound(urn)
