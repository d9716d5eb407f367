"""Sitemaps (sitemaps.org): XML urlsets and indexes, gzip files and plain-text lists.

Bounded: 50 MiB after decompression, the first 50,000 URLs of a file (the rest is reported,
not fetched), and no DTD at all, so entity expansion and external entities never happen.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from lxml import etree
from scrapy.utils._compression import _DecompressionMaxSizeExceeded
from scrapy.utils.gz import gunzip

SITEMAP_MAXSIZE = 50 * 1024 * 1024
MAX_URLS = 50_000
MAX_DEPTH = 3  # index -> index -> index -> urlset
_GZIP = b"\x1f\x8b"


class SitemapError(Exception):
    """The whole file is unusable; ``code`` is the diagnostic code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Sitemap:
    is_index: bool = False
    locs: list[str] = field(default_factory=list)
    dropped: int = 0  # URLs past MAX_URLS


def parse_sitemap(body: bytes) -> Sitemap:
    """The file's URLs in document order; raises SitemapError."""
    if body.startswith(_GZIP):
        try:
            body = gunzip(body, max_size=SITEMAP_MAXSIZE)
        except _DecompressionMaxSizeExceeded:
            raise SitemapError("too-large", "sitemap exceeds 50 MiB decompressed") from None
        except (OSError, EOFError) as exc:
            raise SitemapError("sitemap-invalid", f"bad gzip: {exc}") from None
    start = body.lstrip()[:1]
    if start != b"<":
        return _text_sitemap(body)
    if b"<!DOCTYPE" in body or b"<!ENTITY" in body:
        raise SitemapError("xml-dtd-forbidden", "sitemap declares a DTD or entities")
    return _xml_sitemap(body)


def _text_sitemap(body: bytes) -> Sitemap:
    sitemap = Sitemap()
    for raw in body.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if line.startswith(("http://", "https://")):
            _add(sitemap, line)
    return sitemap


def _xml_sitemap(body: bytes) -> Sitemap:
    sitemap = Sitemap()
    parser = etree.iterparse(
        io.BytesIO(body),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
    )
    try:
        for event, element in parser:
            tag = etree.QName(element).localname if isinstance(element.tag, str) else ""
            if event == "start":
                sitemap.is_index = sitemap.is_index or tag == "sitemapindex"
                continue
            if tag == "loc" and element.text:
                _add(sitemap, element.text.strip())
            if tag in ("url", "sitemap"):
                element.clear()  # streaming: keep memory flat on a 50,000-URL file
    except etree.XMLSyntaxError as exc:
        if not sitemap.locs:
            raise SitemapError("sitemap-invalid", f"not a sitemap: {exc}") from None
    return sitemap


def _add(sitemap: Sitemap, url: str) -> None:
    if len(sitemap.locs) < MAX_URLS:
        sitemap.locs.append(url)
    else:
        sitemap.dropped += 1
