"""Where a page or a response points at more machine-readable documents, and which pages to read.

``<link rel=...>`` tags and HTTP ``Link`` headers (RFC 8288) with the relations that lead to
actions: ``describedby`` (JSON-LD), ``ard`` and its predecessor ``ai-catalog`` (ARD),
``api-catalog`` (RFC 9727) and ``service-desc`` (an OpenAPI description).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from urllib.parse import urljoin, urlsplit

from lxml import html as lxml_html

from registry.formats import link_relations

RELS = link_relations()  # each format names the relations that point at it
MAX_LINKS = 20  # per response: each one costs a request from the site budget
_LINK_VALUE = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]+)*)")
_REL = re.compile(r"""rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))""", re.IGNORECASE)


def header_links(values: list[bytes], base: str) -> list[str]:
    """URLs of the interesting relations in HTTP ``Link`` header values."""
    found = []
    for value in values:
        for target, params in _LINK_VALUE.findall(value.decode("latin-1")):
            match = _REL.search(params)
            rels = set((match.group(1) or match.group(2)).lower().split()) if match else set()
            if rels & RELS:
                found.append(urljoin(base, target.strip()))
    return found[:MAX_LINKS]


def html_links(body: bytes, base: str) -> list[str]:
    """URLs of the interesting relations in a page's ``<link>`` tags."""
    try:
        tree = lxml_html.fromstring(body[: 2 * 1024 * 1024])  # links live in the head
    except (ValueError, TypeError, SyntaxError):
        return []
    found = []
    for link in tree.iter("link"):
        rels = set(str(link.get("rel") or "").lower().split())
        href = link.get("href")
        if href and rels & RELS:
            found.append(urljoin(base, href.strip()))
    return found[:MAX_LINKS]


def page_type(url: str) -> str:
    """A rough page type: the first path segment and the path depth (``/p/123`` ~ ``/p/456``)."""
    path = urlsplit(url).path.strip("/")
    segments = path.split("/") if path else []
    return f"{segments[0] if segments else ''}/{len(segments)}"


def pick_pages(urls: list[str], limit: int) -> list[str]:
    """Up to ``limit`` URLs, one of each page type in turn, so a product list of 40,000 pages
    does not crowd out the one search page."""
    groups: OrderedDict[str, list[str]] = OrderedDict()
    for url in urls:
        groups.setdefault(page_type(url), []).append(url)
    picked: list[str] = []
    depth = 0
    while len(picked) < limit and any(depth < len(g) for g in groups.values()):
        picked += [g[depth] for g in groups.values() if depth < len(g)][: limit - len(picked)]
        depth += 1
    return picked
