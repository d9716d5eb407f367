"""HTML page -> RawDocument holding the page's Schema.org items. Pure functions, shared by the
crawler, `actiondex ingest`, `actiondex validate` and POST /validate.

The document's body is a JSON list the schemaorg format reads: the JSON-LD items, then the
microdata items (extruct's "uniform" JSON-LD shape), then the RDFa items (compacted to plain
Schema.org terms in one ``@graph``), then one WebPage item whose ``potentialAction``s are the
page's WebMCP declarative forms (``registry.formats.webmcp``). Every ``<script
type="application/ld+json">`` block is read on its own, so one broken block (JS comments,
control characters, truncated JSON, nesting deep enough to hit the recursion limit) costs only
itself. Callers refuse pages over MAX_HTML_BYTES before calling.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any, cast

from extruct.jsonld import JsonLdExtractor
from extruct.rdfa import RDFaExtractor
from extruct.uniform import _umicrodata_microformat
from extruct.utils import parse_html, parse_xmldom_html
from extruct.w3cmicrodata import LxmlMicrodataExtractor
from lxml import etree
from w3lib.encoding import html_body_declared_encoding, read_bom

from registry.formats import MAX_DEPTH
from registry.formats.webmcp import webmcp_items
from registry.model.schemas import RawDocument

MAX_HTML_BYTES = 10 * 1024 * 1024
MAX_BLOCKS = 200  # JSON-LD blocks read per page; real pages have a handful
MAX_ITEMS = 500  # microdata / RDFa items kept per page
# A path that selects elements: each call returns a list of them (lxml's stub says any result).
_BLOCKS = cast("Callable[[Any], list[Any]]", etree.XPath('//script[@type="application/ld+json"]'))
_MICRODATA = etree.XPath("//*[@itemscope][1]")
_RDFA = etree.XPath("//*[@typeof][1]")  # Schema.org RDFa always types its nodes
_SCHEMA_IRI = re.compile(r"^https?://schema\.org/")
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
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
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
        text = body[len(bom or b"") :].decode(encoding, errors="replace")
    except LookupError:
        text = body.decode("utf-8", errors="replace")
    return text.encode("utf-8", errors="replace")


def json_ld_items(url: str, body: bytes) -> list[Any]:
    """The page's JSON-LD items, skipping (and logging) blocks that do not parse."""
    try:
        tree = parse_html(_as_utf8(body), encoding="utf-8")
    except (etree.ParserError, ValueError):  # empty or unparseable document
        return []
    return _json_ld(url, tree)


def page_items(url: str, body: bytes) -> list[Any]:
    """JSON-LD, microdata, RDFa and WebMCP items of a page, as one JSON-LD list."""
    html = _as_utf8(body)
    try:
        tree = parse_html(html, encoding="utf-8")
    except (etree.ParserError, ValueError):
        return []
    items = _json_ld(url, tree) + _microdata(url, tree) + _rdfa(url, html, tree)
    items += webmcp_items(url, tree)
    return [item for item in items if not _too_deep(item, MAX_DEPTH - 1)]


def _microdata(url: str, tree: Any) -> list[Any]:
    if not _MICRODATA(tree):
        return []
    try:
        found = list(LxmlMicrodataExtractor().extract_items(tree, url))[:MAX_ITEMS]
        # extruct's own "uniform" step (what extract(uniform=True) runs): microdata items as
        # JSON-LD-shaped dicts, without parsing the page a second time.
        return list(_umicrodata_microformat(found, schema_context="https://schema.org"))
    except Exception as exc:  # extruct on hostile markup: lose the syntax, not the page
        log.info("%s: microdata skipped: %.100s", url, exc)
        return []


def _rdfa(url: str, html: bytes, tree: Any) -> list[Any]:
    """RDFa (pyRdfa's expanded JSON-LD) compacted to Schema.org terms in one @graph."""
    if not _RDFA(tree):
        return []
    try:
        nodes = RDFaExtractor().extract_items(parse_xmldom_html(html, encoding="utf-8"), url)
    except Exception as exc:
        log.info("%s: RDFa skipped: %.100s", url, exc)
        return []
    nodes = [node for node in nodes[:MAX_ITEMS] if isinstance(node, dict)]
    # Blank node names are random per run: renumber them so a page always reads the same.
    blanks: dict[str, str] = {}
    subjects = {node.get("@id") for node in nodes}
    graph = [out for node in nodes if (out := _compact(node, subjects, blanks))]
    return [{"@context": "https://schema.org", "@graph": graph}] if graph else []


def _compact(
    node: dict[str, Any], subjects: set[Any], blanks: dict[str, str]
) -> dict[str, Any] | None:
    """{"https://schema.org/name": [{"@value": "x"}]} -> {"name": "x"}; other vocabularies
    dropped; {"@id": iri} of a node not on the page becomes the plain IRI (a URL value)."""

    def value(item: Any) -> Any:
        if not isinstance(item, dict):
            return item
        if "@value" in item:
            return item["@value"]
        ref = item.get("@id")
        if isinstance(ref, str) and ref.startswith("_:"):
            return {"@id": blanks.setdefault(ref, f"_:b{len(blanks)}")}
        return item if ref in subjects else ref

    out: dict[str, Any] = {}
    ident = node.get("@id")
    if isinstance(ident, str):
        out["@id"] = (
            blanks.setdefault(ident, f"_:b{len(blanks)}") if ident.startswith("_:") else ident
        )
    if "@type" in node:
        out["@type"] = node["@type"]
    for key, values in node.items():
        if isinstance(key, str) and _SCHEMA_IRI.match(key):
            plain = [value(v) for v in (values if isinstance(values, list) else [values])]
            out[_SCHEMA_IRI.sub("", key)] = plain[0] if len(plain) == 1 else plain
    return out if set(out) - {"@id"} else None


def _json_ld(url: str, tree: Any) -> list[Any]:
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
    """The page's Schema.org items as a JSON list document, or None if it has none.

    ``raw_fields`` are passed to RawDocument (status, etag, last_modified, fetched_at).
    """
    if len(body) > MAX_HTML_BYTES:
        return None
    items = page_items(url, body)
    if not items:
        return None
    fields = {k: v for k, v in raw_fields.items() if k not in ("url", "body", "content_type")}
    data = json.dumps(items, ensure_ascii=False, separators=(",", ":")).encode()
    return RawDocument(url=url, body=data, content_type="application/ld+json", **fields)
