"""`actiondex validate`: what agents will see of a file, a document URL or a whole site.

Nothing here writes to the store; fetching (crawler.fetch) runs the crawler without its store.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from actiondex.beside import Beside
from actiondex.runtime import UserError
from actiondex.validate_view import progress, render
from registry.config import Settings
from registry.formats.html import MAX_HTML_BYTES, is_html
from registry.model.schemas import FetchFailure, RawDocument
from registry.model.urls import intake_url
from registry.placement import origin_of, place
from registry.validate import (
    SiteReport,
    ValidationReport,
    bare_page,
    failure_report,
    validate_document,
    validate_placed,
    validate_site,
)

Report = ValidationReport | SiteReport
_HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
# A file named .json/.yaml that holds HTML is a bot challenge or error page saved by mistake:
# reading it as a page would only say "no Schema.org here"; reading it as the manifest it
# should be says "this is HTML, not JSON", which is the useful answer.
_DATA_SUFFIXES = {".json", ".jsonld", ".yaml", ".yml", ".txt"}


def run(
    target: str,
    origin: str | None,
    resolve: list[str],
    allow_private: bool | None,
    settings: Callable[[], Settings],
    as_json: bool,
) -> bool:
    """Validate and print (rich, or one JSON object); True when there is no error."""
    report = validate_target(target, origin, resolve, allow_private, settings, quiet=as_json)
    path = _local_file(target)
    if not as_json:
        render(report, str(path) if path else None)
    elif isinstance(report, ValidationReport):
        # A file's report is exactly {format, actions, flows, diagnostics}; a fetched
        # document also says which URL it came from.
        print(json.dumps(report.public(with_url=path is None), ensure_ascii=False))
    else:
        print(json.dumps(report.public(), ensure_ascii=False))
    return report.ok


def validate_target(
    target: str,
    origin: str | None,
    resolve: list[str],
    allow_private: bool | None,
    settings: Callable[[], Settings],
    quiet: bool = False,
) -> Report:
    """A local file's report, or a fetched document's or site's (UserError on bad input)."""
    path = _local_file(target)
    if path is not None:
        return validate_file(path, origin)
    if "://" not in target and Path(target).is_dir():
        return validate_folder(Path(target), origin)
    try:  # what the crawl will take for the site: a host it cannot read is bad input here
        url = intake_url(_as_url(target))
        origin_of(url)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    # The crawler (and Scrapy) load only when something is fetched; a file needs neither.
    from actiondex.policy import make_policy
    from crawler.fetch import fetch_document, fetch_site

    config = settings()
    policy = make_policy(config, resolve, allow_private)
    reason = policy.check_url(url)
    if reason:
        raise UserError(f"refused {url}: {reason}")
    with progress("fetching…", quiet):
        if urlsplit(url).path in ("", "/"):
            return validate_site(fetch_site(url, config, policy))
        return _document_report(fetch_document(url, config, policy))


def _as_url(target: str) -> str:
    """A URL as given; ``shop.example[/path]`` means https. A missing file is an error, not a
    host: ``menu.json`` must not turn into a fetch of https://menu.json/."""
    if "://" in target:
        return target
    host = target.split("/", 1)[0]
    suffix = Path(host).suffix.lower()
    if target.startswith(".") or "." not in host or suffix in _HTML_SUFFIXES | _DATA_SUFFIXES:
        raise UserError(f"{target}: no such file, and not a domain or URL")
    return f"https://{target}" if "/" in target else f"https://{target}/"


def _local_file(target: str) -> Path | None:
    """The file ``target`` names; a URL is never read as a local file."""
    path = Path(target)
    return path if "://" not in target and path.is_file() else None


class FolderReport(SiteReport):
    """Every manifest or page file of a folder, each as `validate FILE` reports it."""

    def public(self) -> dict[str, Any]:
        return {"folder": self.site, "documents": [d.public(with_url=True) for d in self.documents]}


def validate_folder(folder: Path, origin: str | None) -> FolderReport:
    """The files `ingest FOLDER` would read, each validated; a folder without any is bad input."""
    from actiondex.ingest import SUFFIXES, manifest_files

    files = manifest_files([folder])
    if not files:
        kinds = ", ".join(sorted(SUFFIXES))
        raise UserError(
            f"{folder} is a folder without manifest or page files ({kinds} or a "
            ".well-known name): give a file, a folder holding some, a URL or a domain"
        )
    return FolderReport(site=str(folder), documents=[validate_file(f, origin) for f in files])


def validate_file(path: Path, origin: str | None) -> ValidationReport:
    with path.open("rb") as file:
        body = file.read(MAX_HTML_BYTES + 1)  # pages may be larger than manifests
    suffix = path.suffix.lower()
    page = suffix in _HTML_SUFFIXES or (suffix not in _DATA_SUFFIXES and is_html("", body))
    page = page and len(body) <= MAX_HTML_BYTES  # too big to read: normalise says too-large
    try:
        placed = place(body, path.name, origin, page=page)
    except ValueError as exc:
        raise UserError(f"--origin {exc}") from None
    beside = Beside(path, placed.url)
    report = validate_placed(placed, resolve=beside)
    return report.model_copy(update={"diagnostics": [*report.diagnostics, *beside.diagnostics()]})


def _document_report(
    item: tuple[RawDocument, dict[str, bytes]] | FetchFailure | str,
) -> ValidationReport:
    if isinstance(item, FetchFailure):
        return failure_report(item, named=True)
    if isinstance(item, str):  # an HTML page without Schema.org items
        return bare_page(item)
    document, references = item
    return validate_document(document, resolve=references.get)
