"""HTML page -> RawDocument holding the page's JSON-LD items. A pure function: no Scrapy types.

Every ``<script type="application/ld+json">`` block is read on its own, so one broken block
(JS comments, control characters, truncated JSON, nesting deep enough to hit the recursion
limit) costs only itself. Callers refuse pages over MAX_HTML_BYTES before calling.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from extruct.jsonld import JsonLdExtractor
from extruct.utils import parse_html
from lxml import etree
from w3lib.encoding import html_body_declared_encoding, read_bom

from registry.formats import MAX_DEPTH
from registry.schemas import RawDocument

MAX_HTML_BYTES = 10 * 1024 * 1024
MAX_BLOCKS = 200  # JSON-LD blocks read per page; real pages have a handful
_BLOCKS = etree.XPath('//script[@type="application/ld+json"]')
# Some frameworks wrap the JSON in CDATA ("<![CDATA[ {...} ]]>", often behind "//").
_CDATA = re.compile(r"^\s*(?://\s*)?<!\[CDATA\[|(?://\s*)?\]\]>\s*$")
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<!--", b"<script")

log = logging.getLogger(__name__)


def is_html(content_type: str | None, body: bytes) -> bool:
    """HTML by its declared type or, when the type says nothing useful, by its first bytes."""
    media = (content_type or "").split(";")[0].strip().lower()
    if media in _HTML_TYPES:
        return True
    if media and media not in ("text/plain", "application/octet-stream"):
        return False
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(_HTML_STARTS)


def _too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in
                         (item.values() if isinstance(item, dict) else item))
    return False


def _block_items(block: Any) -> list[Any]:
    """extruct's reading of one block (tolerates JS comments), then a CDATA-wrapped retry."""
    try:
        return list(JsonLdExtractor().extract_items(block))
    except ValueError:
        text = block.xpath("string()")
        unwrapped = _CDATA.sub("", text)
        if unwrapped == text:
            raise
        data = json.loads(unwrapped, strict=False)
        return [item for item in (data if isinstance(data, list) else [data]) if item]


def _as_utf8(body: bytes) -> bytes:
    """Re-encode by BOM, then <meta charset>, then UTF-8 (the HTML standard's order, minus
    HTTP headers): Python knows more codecs than lxml, and one parse path is simpler."""
    encoding, bom = read_bom(body)
    encoding = encoding or html_body_declared_encoding(body) or "utf-8"
    try:
        text = body[len(bom or b""):].decode(encoding, errors="replace")
    except LookupError:
        text = body.decode("utf-8", errors="replace")
    return text.encode("utf-8", errors="replace")


def json_ld_items(url: str, body: bytes) -> list[Any]:
    """The page's JSON-LD items, skipping (and logging) blocks that do not parse."""
    try:
        tree = parse_html(_as_utf8(body), encoding="utf-8")
    except (etree.ParserError, ValueError):  # empty or unparseable document
        return []
    items = []
    for block in _BLOCKS(tree)[:MAX_BLOCKS]:
        try:
            found = _block_items(block)
        except (ValueError, RecursionError) as exc:
            log.info("%s: skipped a JSON-LD block: %.100s", url, exc)
            continue
        # One block nested past the normaliser's limit would reject the whole page.
        items += [item for item in found if not _too_deep(item, MAX_DEPTH - 1)]
    return items


def html_to_document(url: str, body: bytes, **raw_fields: Any) -> RawDocument | None:
    """The page's JSON-LD items as a JSON list document, or None if it has none.

    ``raw_fields`` are passed to RawDocument (status, etag, last_modified, fetched_at).
    """
    if len(body) > MAX_HTML_BYTES:
        return None
    items = json_ld_items(url, body)
    if not items:
        return None
    fields = {k: v for k, v in raw_fields.items() if k not in ("url", "body", "content_type")}
    data = json.dumps(items, ensure_ascii=False, separators=(",", ":")).encode()
    return RawDocument(url=url, body=data, content_type="application/ld+json", **fields)
