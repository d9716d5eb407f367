"""Search over the index: ``contract`` is the query every caller builds (``FindQuery``, its
bounds), ``terms`` picks a long request's words to search, ``plan`` turns them into term
queries (which terms, how weighted, which are common) and ``filters`` its filters into
clauses, ``query`` runs them as BM25 for one page (``search``, ``find``), ``meaning``
re-ranks a sentence's candidates by meaning, ``sites`` adds each site's evidence and groups
by site, ``page`` arranges one page (per-site caps, sites taking turns, a flow's steps under
it) and explains scores. Imports flow one way: search -> index."""

from registry.search.contract import MAX_LIMIT, MAX_OFFSET, PER_SITE, FindQuery, first_problem
from registry.search.query import Page, find, page_json, search

__all__ = [
    "MAX_LIMIT",
    "MAX_OFFSET",
    "PER_SITE",
    "FindQuery",
    "Page",
    "find",
    "first_problem",
    "page_json",
    "search",
]
