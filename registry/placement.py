"""Which site a local document belongs to, and where on it it is served: the one rule of
`actiondex ingest`, `actiondex validate FILE` and POST /validate (a crawl knows already).

The site is the origin the caller gives (``--origin``, ``?origin=``), else the one the document
names for itself (``registry.formats.named_site``: agent-actions' ``site`` as a host or a URL, a
WebSite's ``url``, ai-plugin's ``api.url``, OpenAPI's first server, a linkset's anchor, an A2A
card's or MCP server's URL, an ARD catalog's ``host.identifier``). The file keeps its
published place (``published_path``), so relative endpoints resolve as they will on the site.
Hosts follow a crawl's rules: stored as IDNA A-labels, and a name mixing scripts is flagged
``confusable-host``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from registry.formats import named_site, published_path
from registry.formats.html import html_to_document, is_html
from registry.model.schemas import Diagnostic, RawDocument
from registry.model.urls import a_label, mixed_script_label, site_key, site_of

# Where a document goes when nobody says which site it is published on.
UNKNOWN_ORIGIN = "https://unknown.invalid"
CONFUSABLE_HINT = (
    "use one script per label: a name mixing, say, Latin and Cyrillic letters "
    "can pass for another site's"
)


@dataclass(frozen=True)
class Placed:
    url: str  # where the document is served, e.g. https://shop.example/.well-known/x.json
    document: RawDocument | None  # None: an HTML page without Schema.org items
    named: bool  # False: no site given or named, so it sits at UNKNOWN_ORIGIN
    diagnostics: tuple[Diagnostic, ...] = ()  # about the host: confusable-host

    @property
    def site(self) -> str:
        return site_key(self.url)


def origin_of(value: str) -> str:
    """``scheme://host[:port]`` of a URL or a bare host (meaning https), the host an A-label.
    ValueError when it is neither, or its port is not 1-65535."""
    parts = urlsplit(value.strip() if "://" in value else f"https://{value.strip()}")
    host = (parts.hostname or "").rstrip(".")
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"{value!r} is not a domain or an http(s) URL")
    host = a_label(host)  # ValueError for a name IDNA refuses
    if not _valid_host(host):
        raise ValueError(f"{value!r} is not a domain or an http(s) URL")
    netloc = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:  # ":0" is no site's port, not "the default one"
        raise ValueError(f"{value!r} has a port that is not a number from 1 to 65535")
    return f"{parts.scheme}://{netloc}{f':{port}' if port else ''}"


# An A-label host name: letters, digits, hyphens (and the underscores some real hosts use),
# labels of 1-63 characters. Anything else ("not a url!!") names no site.
_LABEL = re.compile(r"^[a-z0-9_-]{1,63}$")


def _valid_host(host: str) -> bool:
    if ":" in host:  # urlsplit only yields a colon from a bracketed IPv6 literal
        return True
    return all(_LABEL.match(label) for label in host.split("."))


def host_diagnostics(host: str) -> list[Diagnostic]:
    """What a crawl notes about a site's name itself (crawler/spiders/site.py does the same)."""
    label = mixed_script_label(host)
    if label is None:
        return []
    return [
        Diagnostic(
            code="confusable-host",
            path="$",
            hint=CONFUSABLE_HINT,
            message=(f"the name {label!r} mixes scripts and can pass for another site's"),
        )
    ]


def place(
    body: bytes,
    name: str = "",
    origin: str | None = None,
    *,
    page: bool | None = None,
    **fields: Any,
) -> Placed:
    """``body`` (a file called ``name``; an HTML page becomes its Schema.org items) on its site.

    ``page`` says whether it is an HTML page (default: judged from its first bytes);
    ``fields`` go to the RawDocument. ValueError when ``origin`` is not a site.
    """
    page = is_html("", body) if page is None else page
    base = origin_of(origin) if origin else None
    path = published_path(name)
    probe = None
    if base is None:  # a page's items name its site (a WebSite url): read them to find it
        probe = _document(UNKNOWN_ORIGIN + path, body, page, fields)
        base = _own_origin(probe.body) if probe else None
    url = (base or UNKNOWN_ORIGIN) + path
    # Pages are read again at their real URL: relative links resolve against it.
    document = probe if base is None else _document(url, body, page, fields)
    return Placed(url, document, base is not None, tuple(host_diagnostics(site_of(url))))


def _own_origin(body: bytes) -> str | None:
    named = named_site(body)
    try:
        return origin_of(named) if named else None
    except ValueError:  # a site field that names no site: as good as none
        return None


def _document(url: str, body: bytes, page: bool, fields: dict[str, Any]) -> RawDocument | None:
    return (
        html_to_document(url, body, **fields) if page else RawDocument(url=url, body=body, **fields)
    )
