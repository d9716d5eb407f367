"""`actiondex ingest`: manifest files into the store, through the same path as a crawl."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine

from actiondex.runtime import UserError
from registry.db import transaction
from registry.formats import published_path
from registry.pages import html_to_document, is_html
from registry.schemas import RawDocument, SiteCrawl
from registry.service import normalise_site, promote_site
from registry.store import utcnow
from registry.urls import site_of

MAX_FILE_BYTES = 10 * 1024 * 1024
SUFFIXES = {".json", ".jsonld", ".html", ".htm", ""}


def manifest_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*")
                                if p.is_file() and p.suffix.lower() in SUFFIXES
                                and not p.name.startswith(".")))
        elif path.is_file():
            files.append(path)
        else:
            raise UserError(f"{path}: no such file or folder")
    return files


def own_origin(body: bytes) -> str | None:
    """The site a manifest names for itself: ``site.url``, ``url`` or a WebSite's ``url``."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    candidates: list[Any] = [data]
    if isinstance(data, dict):
        candidates += [data.get("site"), *(data.get("@graph") or [])]
    elif isinstance(data, list):
        candidates += data
    for item in candidates:
        if isinstance(item, str) and item.startswith(("http://", "https://")):
            return item
        url = item.get("url") if isinstance(item, dict) else None
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            return url
    return None


def document_for(path: Path, origin: str | None) -> RawDocument:
    body = path.read_bytes()[: MAX_FILE_BYTES + 1]
    if len(body) > MAX_FILE_BYTES:
        raise UserError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB")
    base = origin or own_origin(body)
    if not base:
        raise UserError(f"{path}: no origin; pass --origin https://site.example "
                        "(the manifest names no site url)")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{path}: origin {base!r} is not an http(s) URL")
    # Well-known files keep their place, so relative paths resolve as on the site.
    url = f"{parts.scheme}://{parts.netloc}{published_path(path.name)}"
    fields = {"status": 200, "fetched_at": utcnow()}
    if is_html("", body):
        doc = html_to_document(url, body, **fields)
        return doc or RawDocument(url=url, body=b"[]", content_type="application/ld+json",
                                  **fields)
    return RawDocument(url=url, body=body, content_type="application/json", **fields)


def ingest_paths(engine: Engine, paths: list[Path], origin: str | None) -> dict[str, Any]:
    """Group files by site, then normalise and promote each site in one transaction."""
    by_site: dict[str, list[RawDocument]] = defaultdict(list)
    for path in manifest_files(paths):
        doc = document_for(path, origin)
        by_site[site_of(doc.url)].append(doc)
    totals: dict[str, Any] = {"kind": "ingest", "sites": 0, "documents": 0, "actions": 0,
                              "flows": 0, "errors": 0, "changed_sites": [], "per_site": []}
    for host, docs in sorted(by_site.items()):
        scheme_host = urlsplit(docs[0].url)
        crawl = SiteCrawl(host=host, origin=f"{scheme_host.scheme}://{scheme_host.netloc}",
                          documents=docs)
        update = normalise_site(crawl)
        with transaction(engine) as session:
            result = promote_site(session, update)
        totals["sites"] += 1
        totals["documents"] += result.documents
        totals["actions"] += result.actions
        totals["flows"] += result.flows
        totals["errors"] += len(result.errors)
        if result.changed:
            totals["changed_sites"].append(host)
        totals["per_site"].append({"host": host, "documents": result.documents,
                                   "actions": result.actions, "flows": result.flows,
                                   "errors": result.errors})
    if not by_site:
        raise UserError("no manifest files found")
    return totals
