"""`actiondex ingest`: manifest files into the store, through the same path as a crawl.

Each file is placed on its site by registry.placement, the rule `actiondex validate` and
POST /validate follow. A file that is no manifest (a JSON Schema, a README, a page without
Schema.org items) or names no site is skipped with its reason and the others are stored, so
one stray file in a folder never stops the rest.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from actiondex.beside import Beside
from actiondex.runtime import UserError
from registry.db.engine import transaction
from registry.formats import NAMING_FORMATS, well_known_names
from registry.model.schemas import FetchFailure, FirstPass, Manifest, RawDocument, SiteCrawl
from registry.model.urls import site_key
from registry.normalising import normalise_alone, normalise_site
from registry.placement import host_diagnostics, origin_of, place
from registry.store.promotion import PromoteResult, promote_site
from registry.store.rows import utcnow

MAX_FILE_BYTES = 10 * 1024 * 1024
# What a folder walk reads: these, and files by a well-known name ("api-catalog", "llms.txt").
SUFFIXES = {".json", ".jsonld", ".html", ".htm"}


@dataclass
class Skipped:
    path: str
    reason: str


class Skip(Exception):
    """This file is not stored; the message says why."""


def _wanted(path: Path, folder: Path) -> bool:
    """A manifest-like file, not hidden, nor in a hidden folder (.git) other than the one
    manifests are published in."""
    hidden = [p for p in path.relative_to(folder).parts if p.startswith(".")]
    return (
        path.is_file()
        and hidden in ([], [".well-known"])
        and (path.suffix.lower() in SUFFIXES or path.name in well_known_names())
    )


def manifest_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if _wanted(p, path)))
        elif path.is_file():
            files.append(path)
        else:
            raise UserError(f"{path}: no such file or folder")
    return files


def read_file(path: Path, origin: str | None) -> tuple[RawDocument, FirstPass]:
    """The file as a document placed on its site, with its first pass (normalised on its own:
    what it asks to read, and the manifest the store reuses when it reads nothing, as a
    crawl's); Skip when it is no manifest or names no site."""
    with path.open("rb") as file:
        body = file.read(MAX_FILE_BYTES + 1)
    if len(body) > MAX_FILE_BYTES:
        raise Skip(f"larger than {MAX_FILE_BYTES // 2**20} MiB")
    placed = place(body, path.name, origin, status=200, fetched_at=utcnow())
    document = placed.document
    if document is None:
        raise Skip("an HTML page without Schema.org JSON-LD, microdata or RDFa")
    first = normalise_alone(document, site_key(document.url))
    _check(first.manifest)
    if not placed.named:
        raise Skip(
            "names no site; pass --origin https://site.example, or give the "
            "manifest its site (a url field)"
        )
    return document, first


def _check(manifest: Manifest) -> None:
    """Skip what holds nothing for agents: no known format, or a README read as llms.txt."""
    why = next(
        (f" ({d.code}: {d.message})" for d in manifest.diagnostics if d.severity == "error"), ""
    )
    if manifest.format == "unknown":
        raise Skip(f"not a manifest{why}")
    # A Schema.org WebSite with a name or description and no action is still worth storing:
    # seed 000 calls its Minimal Example "a valid agents.json" whose name and description
    # agents match intents against (a crawl keeps it too).
    named = manifest.format in NAMING_FORMATS and (manifest.site_name or manifest.site_description)
    if not (manifest.actions or manifest.flows or manifest.references or named):
        raise Skip(f"no actions, flows, references to other documents or site name{why}")


@dataclass
class _Placed:
    by_site: dict[str, list[RawDocument]]
    first_pass: dict[str, dict[str, FirstPass]]  # by site, then by document URL
    skipped: list[Skipped]
    read: list[dict[str, str]]


def _place_all(files: list[Path], origin: str | None) -> _Placed:
    """The documents by site with their first passes, the files skipped, and the files read
    beside a manifest for a document it references (actiondex.beside: the rule `validate
    FILE` follows)."""
    by_site: dict[str, list[RawDocument]] = defaultdict(list)
    first_pass: dict[str, dict[str, FirstPass]] = defaultdict(dict)
    skipped, read = [], []
    for path in files:
        try:
            document, first = read_file(path, origin)
        except Skip as exc:
            skipped.append(Skipped(str(path), str(exc)))
            continue
        site = site_key(document.url)
        if document.url in {d.url for d in by_site[site]}:
            continue  # read already, beside a manifest that references it
        by_site[site].append(document)
        first_pass[site][document.url] = first
        beside = Beside(path, document.url)
        for url in first.asked:
            body = None if url in {d.url for d in by_site[site]} else beside(url)
            if body is not None:
                by_site[site].append(
                    RawDocument(url=url, body=body, status=200, fetched_at=utcnow())
                )
                read.append({"path": str(beside.read[url]), "url": url, "by": str(path)})
    return _Placed(by_site, first_pass, skipped, read)


def _store_site(
    engine: Engine, host: str, docs: list[RawDocument], first_pass: dict[str, FirstPass]
) -> PromoteResult:
    """One site in one transaction; its name is checked as a crawl checks it. A document
    whose first pass asked to read none of the site's documents is not normalised again."""
    origin = origin_of(docs[0].url)
    notes = [
        FetchFailure(url=origin + "/", code=d.code, message=d.message)
        for d in host_diagnostics(host)
    ]
    crawl = SiteCrawl(
        host=host, origin=origin, documents=docs, failures=notes, first_pass=first_pass
    )
    update = normalise_site(crawl)
    with transaction(engine) as session:
        return promote_site(session, update, reason="ingest")


def ingest_paths(engine: Engine, paths: list[Path], origin: str | None) -> dict[str, Any]:
    """Group the files by site, then normalise and promote each site in one transaction.
    The summary lists every file that was skipped, with its reason."""
    try:
        origin = origin_of(origin) if origin else None
    except ValueError as exc:
        raise UserError(f"--origin {exc}") from None
    files = manifest_files(paths)
    if not files:
        raise UserError("no manifest files found")
    placed = _place_all(files, origin)
    totals: dict[str, Any] = {
        "kind": "ingest",
        "sites": 0,
        "documents": 0,
        "actions": 0,
        "flows": 0,
        "errors": 0,
        "changed_sites": [],
        "per_site": [],
        "skipped": [asdict(s) for s in placed.skipped],
        "read_beside": placed.read,
    }
    for host, docs in sorted(placed.by_site.items()):
        _add(totals, _store_site(engine, host, docs, placed.first_pass[host]))
    return totals


def _add(totals: dict[str, Any], result: PromoteResult) -> None:
    totals["sites"] += 1
    for key in ("documents", "actions", "flows"):
        totals[key] += getattr(result, key)
    totals["errors"] += len(result.errors)
    if result.changed:
        totals["changed_sites"].append(result.host)
    totals["per_site"].append(
        {
            "host": result.host,
            "documents": result.documents,
            "actions": result.actions,
            "flows": result.flows,
            "errors": result.errors,
        }
    )
