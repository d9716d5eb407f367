"""BM25 search over the action index: ``search(index, FindQuery)`` -> Page.

``registry.search.plan`` turns the text into term queries (it never reaches tantivy's query
parser, so no input can make it raise); this module runs them for one page. ``search``
returns a Page whose hits carry the pre-serialised payload; ``page_json`` turns it into GET
/find's body without building a pydantic object per result (the lean path), ``find`` into a
FindResponse. The query's bounds were checked by FindQuery (registry.search.contract) before
it gets here.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import tantivy

from registry.index import ActionIndex
from registry.index.text import query_words
from registry.results import FindResponse, FindResult
from registry.search import meaning, plan
from registry.search.contract import FindQuery
from registry.search.page import Hit, arrange, explanation

# Candidates looked at for one page: first a little more than the page, so grouping can move a
# crowding site's extras down; when one site's near-identical actions fill all of them (a
# keyword-stuffed manifest, RELIABILITY.md 30), four times as many, up to MAX_CANDIDATES.
MAX_CANDIDATES = 2_000


@dataclass
class Page:
    query: str
    hits: list[Hit] = field(default_factory=list)
    took_ms: float = 0.0


def search(index: ActionIndex, query: FindQuery) -> Page:
    """One page of the best actions and flows for ``query``. Never raises on its text."""
    started = time.perf_counter()
    page = Page(query.q)
    words = query_words(query.q)
    if words:
        searcher = index.searcher()
        parts, common, freq = plan.planned(searcher, words)
        page.hits, bonus = _ranked(searcher, query, words, parts, common, freq)
        if query.explain:
            for hit in page.hits:
                hit.explain = explanation(parts, searcher, hit.address)
                hit.explain += meaning.explained(bonus, hit.address)
    page.took_ms = round((time.perf_counter() - started) * 1000, 3)
    return page


def _ranked(
    searcher: tantivy.Searcher,
    query: FindQuery,
    words: list[str],
    parts: dict[tuple[str, str], tuple[float, tantivy.Query]],
    common: set[str],
    freq: dict[tuple[str, str], int],
) -> tuple[list[Hit], meaning.Bonus]:
    """The page's hits, and what meaning added to each candidate's score."""
    built = plan.build_query(parts, query, common)
    cap = query.per_site if not query.site else 0  # a site asked for: no cap
    fetch = 2 * (query.offset + query.limit) + 10
    sentence, bonus = meaning.is_sentence(words), {}
    if sentence:
        fetch = max(fetch, meaning.CANDIDATES)
    while True:
        first = plan.all_words_first(parts, query, common, freq, searcher.num_docs, fetch)
        found = searcher.search(first, fetch, count=False).hits if first else []
        if len(found) < fetch:
            found = searcher.search(built, fetch, count=False).hits
        if sentence:
            found, bonus = meaning.by_meaning(searcher, query.q, found)
        hits, crowded = arrange(searcher, found, query.limit, query.offset, cap)
        if not crowded or len(found) < fetch or fetch >= MAX_CANDIDATES:
            return hits, bonus
        fetch = min(4 * fetch, MAX_CANDIDATES)


def find(index: ActionIndex, query: FindQuery) -> FindResponse:
    """``search`` as a FindResponse (the CLI, the demo and tests)."""
    page = search(index, query)
    results = [FindResult.model_validate_json(hit.json()) for hit in page.hits]
    return FindResponse(query=page.query, results=results, took_ms=page.took_ms)


def page_json(page: Page) -> bytes:
    """GET /find's body, spliced from the stored payloads: the same JSON FindResponse.public()
    gives (key order aside), without a model per result."""
    results = b",".join(hit.json() for hit in page.hits)
    return b'{"query":%s,"results":[%s],"took_ms":%s}' % (
        json.dumps(page.query).encode(), results,
        repr(page.took_ms).encode())
