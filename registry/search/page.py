"""Turning ranked index hits into a page: grouping, diversity, pagination and explanations.

Grouping keeps one site or one flow from crowding the page: an action that is a step of a
flow ranked above it is folded under that flow (the flow lists its steps), and each page holds
at most ``cap`` results per site while other sites have candidates; a site's extras move to
later pages, they are not dropped. Within a page, sites also take turns: a site's k-th result
on the page is placed as if it scored DIVERSITY^k of its score, so a second action of one site
must beat the best of another by that margin (the scores shown stay the scores).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import tantivy

DIVERSITY = 0.9


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
    support: float = 0.0  # what its site's other candidates added (registry.search.sites)
    live: str = ""  # its endpoint's liveness status, when probed

    @property
    def cross(self) -> bool:
        """Its endpoint is on another host than its site's (the payload's ``origin``: its first
        ``"origin":`` is the result's own, before the spliced schemas)."""
        at = self.payload.find(b'"origin":')
        return at >= 0 and self.payload.startswith(b'"origin":"cross"', at)

    def json(self) -> bytes:
        """The wire form: the stored payload with the score (and explanation) spliced in."""
        extra = b',"score":%s' % repr(float(self.score)).encode()
        if self.explain is not None:
            extra += b',"explain":' + json.dumps(self.explain).encode()
        return self.payload[:-1] + extra + b"}"


class Docs:
    """A searcher whose documents are read once per search: the meaning re-rank reads a
    candidate's vector and the page its payload from the same document (a load is about
    20 us at 100k actions). Anything else is the searcher's own."""

    def __init__(self, searcher: tantivy.Searcher) -> None:
        self._searcher = searcher
        self._docs: dict[tuple[int, int], tantivy.Document] = {}

    def doc(self, address: tantivy.DocAddress) -> tantivy.Document:
        key = (address.segment_ord, address.doc)
        if key not in self._docs:
            self._docs[key] = self._searcher.doc(address)
        return self._docs[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher, name)


def load(searcher: tantivy.Searcher | Docs, score: float, address: tantivy.DocAddress) -> Hit:
    doc = searcher.doc(address)
    return Hit(
        float(score),
        address,
        doc.get_first("kind") or "action",
        doc.get_first("site") or "",
        doc.get_first("key") or "",
        tuple(doc.get_all("step")),
        cast(bytes, doc.get_first("payload")),
        live=doc.get_first("live") or "",
    )  # every document stores its payload


def unfolded(hits: Iterable[Hit]) -> Iterator[Hit]:
    """Skip actions that are steps of a flow of the same site ranked above them."""
    folded: set[tuple[str, str]] = set()
    for hit in hits:
        if hit.kind == "action" and (hit.site, hit.key) in folded:
            continue
        folded.update((hit.site, step) for step in hit.steps)
        yield hit


class _Candidates:
    """A ranking's hits as a page draws them: ``pool`` holds the ones drawn but not placed
    yet (in rank order), ``floor`` the score of the last one drawn (no hit left in ``hits``
    scores more)."""

    def __init__(self, hits: Iterator[Hit]) -> None:
        self.hits, self.floor = hits, float("inf")
        self.pool: list[Hit] = []

    def best(self, on_page: Counter[str], cap: int) -> Hit | None:
        """The hit to place next on a page holding ``on_page`` hits per site: the best by
        DIVERSITY-discounted score among sites under ``cap``. Draws from ``hits`` only while
        one of them could still win: documents further down are never loaded."""
        best, value = None, float("-inf")
        for i, hit in enumerate(self.pool):
            if on_page[hit.site] < cap and hit.score * DIVERSITY ** on_page[hit.site] > value:
                best, value = i, hit.score * DIVERSITY ** on_page[hit.site]
        while self.floor > value:
            drawn = next(self.hits, None)
            if drawn is None:
                self.floor = float("-inf")
                break
            self.pool.append(drawn)
            self.floor = drawn.score
            if on_page[drawn.site] < cap and drawn.score * DIVERSITY ** on_page[drawn.site] > value:
                best, value = len(self.pool) - 1, drawn.score * DIVERSITY ** on_page[drawn.site]
        return None if best is None else self.pool.pop(best)


def _paged(hits: Iterator[Hit], size: int, cap: int, want: int) -> tuple[list[Hit], bool]:
    """The first ``want`` hits of pages of ``size``, each filled best first (``_Candidates``)
    with at most ``cap`` hits per site; hits over the cap wait for a later page, or fill this
    one when only capped sites are left. Also says whether a page had to be filled from
    over-cap hits (the candidates ran out first)."""
    ordered: list[Hit] = []
    candidates = _Candidates(hits)
    crowded = False
    while len(ordered) < want:
        on_page: Counter[str] = Counter()
        page: list[Hit] = []
        while len(page) < size and (hit := candidates.best(on_page, cap)) is not None:
            page.append(hit)
            on_page[hit.site] += 1
        held, room = candidates.pool, size - len(page)
        crowded |= room > 0 and bool(held)
        page, candidates.pool = page + held[:room], held[room:]
        if not page:
            break
        ordered += page
    return ordered, crowded


def arrange(hits: Iterable[Hit], limit: int, offset: int, cap: int) -> tuple[list[Hit], bool]:
    """The page [offset, offset + limit) of the grouped ranking of ``hits`` (best first), and
    whether it had to take more than ``cap`` hits of a site because too few other sites
    were among them."""
    hits = unfolded(hits)
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
            out.append(
                {"term": term, "field": field_name, "weight": weight, "score": round(score, 4)}
            )
    return sorted(out, key=lambda part: -part["score"])


def supported(hit: Hit) -> list[dict[str, Any]]:
    """The part of an ``explain`` list that its site's other candidates added, if any."""
    if hit.support <= 0:
        return []
    return [{"term": "(site)", "field": "site", "weight": 1.0, "score": round(hit.support, 4)}]
