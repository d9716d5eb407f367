"""Turning ranked index hits into a page: grouping, pagination and explanations.

Grouping keeps one site or one flow from crowding the page: an action that is a step of a
flow ranked above it is folded under that flow (the flow lists its steps), and each page holds
at most ``cap`` results per site while other sites have candidates; a site's extras move to
later pages, they are not dropped.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import tantivy


@dataclass
class Hit:
    score: float
    address: tantivy.DocAddress
    kind: str
    site: str
    key: str
    steps: tuple[str, ...]
    payload: bytes
    explain: list[dict[str, Any]] | None = None

    def json(self) -> bytes:
        """The wire form: the stored payload with the score (and explanation) spliced in."""
        extra = b',"score":%s' % repr(float(self.score)).encode()
        if self.explain is not None:
            extra += b',"explain":' + json.dumps(self.explain).encode()
        return self.payload[:-1] + extra + b"}"


def _hit(searcher: tantivy.Searcher, score: float, address: tantivy.DocAddress) -> Hit:
    doc = searcher.doc(address)
    return Hit(float(score), address, doc.get_first("kind") or "action",
               doc.get_first("site") or "", doc.get_first("key") or "",
               tuple(doc.get_all("step")), doc.get_first("payload"))


def _unfolded(hits: Iterator[Hit]) -> Iterator[Hit]:
    """Skip actions that are steps of a flow of the same site ranked above them."""
    folded: set[tuple[str, str]] = set()
    for hit in hits:
        if hit.kind == "action" and (hit.site, hit.key) in folded:
            continue
        folded.update((hit.site, step) for step in hit.steps)
        yield hit


def _paged(hits: Iterator[Hit], size: int, cap: int, want: int) -> tuple[list[Hit], bool]:
    """The first ``want`` hits of pages of ``size`` filled in rank order with at most ``cap``
    hits per site; hits over the cap wait for a later page, or fill this one when only
    capped sites are left. Lazy: documents past the requested page are never loaded. Also
    says whether a page had to be filled from over-cap hits (the candidates ran out first)."""
    ordered: list[Hit] = []
    held: list[Hit] = []  # over their site's cap so far, in rank order
    rank: dict[int, int] = {}
    crowded = False
    while len(ordered) < want:
        per_site: Counter[str] = Counter()
        page: list[Hit] = []
        queue, held = deque(held), []
        while len(page) < size:
            hit = queue.popleft() if queue else next(hits, None)
            if hit is None:
                break
            rank.setdefault(id(hit), len(rank))
            if per_site[hit.site] < cap:
                page.append(hit)
                per_site[hit.site] += 1
            else:
                held.append(hit)
        held = sorted(held + list(queue), key=lambda h: rank[id(h)])
        crowded |= len(page) < size and bool(held)
        page, held = page + held[: size - len(page)], held[size - len(page) :]
        if not page:
            break
        ordered += page
    return ordered, crowded


def arrange(
    searcher: tantivy.Searcher,
    found: Sequence[tuple[float, tantivy.DocAddress]],
    limit: int,
    offset: int,
    cap: int,
) -> tuple[list[Hit], bool]:
    """The page [offset, offset + limit) of the grouped ranking, and whether it had to take
    more than ``cap`` hits of a site because ``found`` held too few other sites."""
    hits = _unfolded(_hit(searcher, score, address) for score, address in found)
    if cap > 0:
        ordered, crowded = _paged(hits, limit, cap, offset + limit)
        return ordered[offset:], crowded
    return list(itertools.islice(hits, offset, offset + limit)), False


def _score(query: tantivy.Query, searcher: tantivy.Searcher, address: tantivy.DocAddress) -> float:
    try:
        return float(json.loads(query.explain(searcher, address).to_json()).get("value", 0.0))
    except ValueError:  # tantivy: "Document does not match"
        return 0.0


def explanation(
    parts: dict[tuple[str, str], tuple[float, tantivy.Query]],
    searcher: tantivy.Searcher,
    address: tantivy.DocAddress,
) -> list[dict[str, Any]]:
    """Which query term met which field, and what it added: ``parts`` maps (term, field) to
    the term's weight (1 for the query's own words, less for an expansion) and its query."""
    out = []
    for (term, field_name), (weight, query) in parts.items():
        score = _score(query, searcher, address)
        if score > 0:
            out.append({"term": term, "field": field_name, "weight": weight,
                        "score": round(score, 4)})
    return sorted(out, key=lambda part: -part["score"])
