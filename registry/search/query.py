"""BM25 search over the action index: ``search(index, FindQuery)`` -> Page.

``registry.search.plan`` turns the text into term queries (it never reaches tantivy's query
parser, so no input can make it raise); this module runs them for one page. ``search``
returns a Page whose hits carry the pre-serialised payload (``registry.search.sites`` adds
their site's evidence, ``page`` arranges them, or ``sites`` groups them by site);
``page_json`` turns it into GET /find's body without building a pydantic object per result
(the lean path), ``find`` into a FindResponse. The query's bounds were checked by FindQuery
(registry.search.contract) before it gets here.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import tantivy

from registry.index import ActionIndex
from registry.index.text import query_words
from registry.index.vector_index import VectorIndex
from registry.model.results import FindResponse
from registry.search import meaning, plan, sites
from registry.search.contract import FindQuery
from registry.search.filters import filter_clauses
from registry.search.page import Docs, Hit, arrange, explanation, supported
from registry.search.sites import SiteHits
from registry.search.terms import Shortened, informative

# Candidates looked at for one page (see _ranked); when one site's near-identical actions fill
# all of them (a keyword-stuffed manifest, docs/RELIABILITY.md 30), or too few sites for a page of
# them, four times as many, up to MAX_CANDIDATES.
MAX_CANDIDATES, SITE_FETCH = 2_000, 4


@dataclass
class Page:
    query: str
    hits: list[Hit] = field(default_factory=list)
    took_ms: float = 0.0
    shortened: Shortened | None = None  # the request had more words than one search takes
    sites: list[SiteHits] | None = None  # group=site: the hits are theirs

    def all_hits(self) -> list[Hit]:
        return [hit for site in self.sites for hit in site.hits] if self.sites else self.hits


def search(index: ActionIndex, query: FindQuery) -> Page:
    """One page of the best actions and flows for ``query``. Never raises on its text."""
    started = time.perf_counter()
    page = Page(query.q, sites=[] if query.group == "site" else None)
    words = query_words(query.q, None)
    if words:
        searcher = index.searcher()
        words, page.shortened = informative(searcher, words)
        parts, common, freq = plan.planned(searcher, words)
        bonus = _ranked(searcher, query, words, (parts, common, freq), page, index.vectors)
        if query.explain:
            for hit in page.all_hits():
                hit.explain = explanation(parts, searcher, hit.address)
                hit.explain += meaning.explained(bonus, hit.address) + supported(hit)
    page.took_ms = round((time.perf_counter() - started) * 1000, 3)
    return page


def _ranked(
    searcher: tantivy.Searcher,
    query: FindQuery,
    words: list[str],
    planned: plan.Planned,
    page: Page,
    near: VectorIndex | None = None,
) -> meaning.Bonus:
    """Fills ``page`` with its hits (or sites); answers what meaning added to each
    candidate's score."""
    parts, common, freq = planned
    built = plan.build_query(parts, query, common)
    cap = query.per_site if not query.site else 0  # a site asked for: no cap
    want = query.offset + query.limit
    # Candidates: a little more than the page, so grouping can move a crowding site's extras
    # down; for a page of sites, a few of each.
    fetch = (SITE_FETCH if page.sites is not None else 2) * want + 10
    bonus: meaning.Bonus = {}
    sentence, docs = meaning.is_sentence(words), Docs(searcher)
    if sentence:
        fetch = max(fetch, meaning.CANDIDATES)
    while True:
        first = plan.all_words_first(parts, query, common, freq, searcher.num_docs, fetch)
        found = searcher.search(first, fetch, count=False).hits if first else []
        if len(found) < fetch:
            found = searcher.search(built, fetch, count=False).hits
        stage = near is not None and near.actions  # ACTIONDEX_MEANING_FIRST_STAGE
        if sentence and not stage:  # words find, and the sites nearest by meaning (if kept)
            filters = filter_clauses(query) if near is not None else []
            found, bonus = meaning.by_meaning(docs, query.q, found, near, filters)
        elif sentence and near is not None:
            filters = filter_clauses(query)
            scored = built if query.explain else None
            found, bonus = meaning.with_vectors(docs, query.q, found, near, scored, filters)
        elif (
            near is not None
            and (stage or page.sites is not None)
            and _short(docs, found, want, page.sites is not None)
        ):
            # Words found less than a page: what is nearest by meaning fills it, below them.
            found, bonus = meaning.after_words(docs, query.q, found, near, filter_clauses(query))
        hits = sites.supported(docs, found)
        if page.sites is not None:
            page.sites, short = sites.grouped(hits, query.limit, query.offset, query.per_site)
        else:
            page.hits, short = arrange(hits, query.limit, query.offset, cap)
        if not short or len(found) < fetch or fetch >= MAX_CANDIDATES:
            return bonus
        fetch = min(4 * fetch, MAX_CANDIDATES)


def _short(docs: Docs, found: meaning.Found, want: int, sites: bool) -> bool:
    """Whether ``found`` holds fewer than ``want`` actions (``sites``: fewer sites)."""
    if len(found) < want or not sites:
        return len(found) < want
    return len({docs.doc(address).get_first("site") for _, address in found}) < want


def find(index: ActionIndex, query: FindQuery) -> FindResponse:
    """``search`` as a FindResponse (the CLI, the demo and tests)."""
    page = search(index, query)
    return FindResponse.model_validate_json(page_json(page))


def page_json(page: Page) -> bytes:
    """GET /find's body, spliced from the stored payloads: the same JSON FindResponse.public()
    gives (key order aside), without a model per result."""
    results = b",".join(hit.json() for hit in page.hits)
    extra = b""
    if page.sites is not None:
        extra += b',"sites":[%s]' % b",".join(site.json() for site in page.sites)
    if page.shortened:
        extra += b',"shortened":' + json.dumps(page.shortened.json()).encode()
    return b'{"query":%s,"results":[%s]%s,"took_ms":%s}' % (
        json.dumps(page.query).encode(),
        results,
        extra,
        repr(page.took_ms).encode(),
    )
