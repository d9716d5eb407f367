"""Search over the index: ``query`` plans and runs a BM25 query (``search``, ``find``),
``meaning`` re-ranks a sentence's candidates by meaning, ``page`` arranges one page (per-site
caps, a flow's steps under it) and explains scores. Imports flow one way: search -> index."""

from registry.search.query import (
    MAX_LIMIT,
    MAX_OFFSET,
    PER_SITE,
    Filters,
    Page,
    find,
    page_json,
    search,
)

__all__ = ["MAX_LIMIT", "MAX_OFFSET", "PER_SITE", "Filters", "Page", "find", "page_json",
           "search"]
