"""`actiondex crawl`: check targets, run the Scrapy crawl, bring the index up to date."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.status import Status
from sqlalchemy import Engine

from actiondex import output
from actiondex.policy import Refused, make_policy
from actiondex.runtime import StoreUnavailable, UserError, open_index, open_store
from crawler.guard import AddressPolicy
from crawler.run import run_crawl
from crawler.targets import check_targets
from registry.config import Settings
from registry.db.engine import DB_AWAY, first_line
from registry.identity import SigningKeyError, load_or_create


@dataclass(frozen=True)
class CrawlOptions:
    max_pages: int = 50  # sitemap pages per site
    delay: float = 1.0  # minimum seconds between requests to one host
    index: bool = True  # bring the index up to date after (crawl workers serve no searches)
    # A file (a worker's pipe) that gets each site's summary row, one JSON line, once it is
    # stored: the job of that site ends then, not when the last site of its batch does.
    report: Path | None = None


def read_targets(targets: list[str], file: Path | None) -> list[str]:
    """Targets from the command line, then from FILE (one per line, blank lines and # skipped)."""
    found = list(targets)
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"--file {file}: cannot read it: {exc}") from exc
        found += [line.split("#", 1)[0].strip() for line in text.splitlines()]
    found = [t for t in found if t]
    if not found:
        raise UserError("nothing to crawl: name sites as arguments or with --file FILE")
    return found


def accepted_targets(targets: list[str], policy: AddressPolicy) -> list[str]:
    """Refuse malformed and unsafe targets up front, one line each; an error when none is
    left, so `crawl localhost` and `crawl http://127.0.0.1:9/` end alike."""
    accepted, refusals = check_targets(targets, policy)
    if not accepted:
        raise Refused("; ".join(refusals))
    for refusal in refusals:
        output.info(f"actiondex: {refusal}")
    return accepted


def crawl_and_index(
    settings: Settings,
    targets: list[str],
    resolve: list[str],
    allow_private: bool | None,
    quiet: bool = False,
    options: CrawlOptions | None = None,
    engine: Engine | None = None,
) -> dict[str, Any]:
    """Crawl into the store, bring the index up to date (unless ``options.index`` is off),
    return the crawl's summary. ``engine``: the process's one engine, when the caller has the
    store open already."""
    options = options or CrawlOptions()
    policy = make_policy(settings, resolve, allow_private)
    accepted = accepted_targets(targets, policy)
    if settings.sign_requests:
        try:  # made now if need be, so a broken key file is one line, not a Scrapy traceback
            load_or_create(settings)
        except (OSError, SigningKeyError) as exc:
            raise UserError(f"the crawler's signing key: {exc}") from None
    engine = engine or open_store(settings)
    try:
        with (
            _status(len(accepted), quiet) as status,
            _site_report(options.report) as report,
        ):
            progress = _both(status, report)
            summary = run_crawl(
                accepted,
                settings,
                policy,
                engine,
                progress=progress,
                max_pages=options.max_pages,
                delay=options.delay,
            )
    except DB_AWAY as exc:  # before any site was fetched: the run could not be recorded
        raise StoreUnavailable(f"the database went away: {first_line(exc)}") from exc
    data = {**summary.model_dump(), "kind": "crawl"}
    if not options.index:
        return data
    try:
        open_index(settings, engine)
    except DB_AWAY as exc:
        spooled = sum("store-unavailable" in row["errors"] for row in data["per_site"])
        raise StoreUnavailable(
            f"the database went away: {first_line(exc)}; the index is not updated and "
            f"{spooled} of {data['sites']} sites wait in {settings.data_dir / 'spool'} for the "
            "next crawl"
        ) from exc
    return data


Progress = Callable[[dict[str, Any]], None]


def _both(*callbacks: Progress | None) -> Progress | None:
    wanted = [c for c in callbacks if c is not None]
    if not wanted:
        return None

    def each(stats: dict[str, Any]) -> None:
        for callback in wanted:
            callback(stats)

    return each


@contextmanager
def _site_report(path: Path | None) -> Iterator[Progress | None]:
    """Each stored site's row, one JSON line, to ``path`` as soon as it is stored. A row that
    says ``store-unavailable`` is left out: that site waits in the spool, and its job for the
    crawl's end, when the spool is replayed (its final row is in the summary)."""
    if path is None:
        yield None
        return
    try:
        sink = path.open("w", encoding="utf-8", buffering=1)  # a line at a time
    except OSError as exc:
        raise UserError(f"--report-sites {path}: cannot write it: {exc}") from exc
    with sink:

        def report(stats: dict[str, Any]) -> None:
            row = stats.get("site")
            if isinstance(row, dict) and "store-unavailable" not in row.get("errors", ()):
                sink.write(json.dumps(row, sort_keys=True) + "\n")

        yield report


@contextmanager
def _status(sites: int, quiet: bool) -> Iterator[Progress | None]:
    """A progress line on stderr while the crawl runs (none when quiet)."""
    if quiet:
        yield None
        return
    with Status("crawling…", console=output.err) as status:

        def progress(stats: dict[str, Any]) -> None:
            status.update(
                f"crawling: {stats.get('sites', 0)}/{sites} sites, "
                f"{stats.get('documents', 0)} documents, "
                f"{stats.get('actions', 0)} actions, {stats.get('errors', 0)} errors"
            )

        yield progress
