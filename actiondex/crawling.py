"""`actiondex crawl`: check targets, run the Scrapy crawl, bring the index up to date."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.status import Status

from actiondex import output
from actiondex.runtime import UserError, open_index, open_store
from crawler.guard import AddressPolicy, policy_from
from crawler.run import run_crawl
from crawler.targets import check_targets
from registry.config import Settings


@dataclass(frozen=True)
class CrawlOptions:
    max_pages: int = 50  # sitemap pages per site
    delay: float = 1.0  # minimum seconds between requests to one host


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


def make_policy(settings: Settings, resolve: list[str],
                allow_private: bool | None) -> AddressPolicy:
    """The address policy of the settings and the command line's flags."""
    try:
        return policy_from(settings, resolve, allow_private)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def accepted_targets(targets: list[str], policy: AddressPolicy) -> list[str]:
    """Refuse malformed and unsafe targets up front, one line each; an error when none is
    left, so `crawl localhost` and `crawl http://127.0.0.1:9/` end alike."""
    accepted, refusals = check_targets(targets, policy)
    if not accepted:
        raise UserError("; ".join(refusals))
    for refusal in refusals:
        output.info(f"actiondex: {refusal}")
    return accepted


def crawl_and_index(
    settings: Settings, targets: list[str], resolve: list[str], allow_private: bool | None,
    quiet: bool = False, options: CrawlOptions | None = None,
) -> dict[str, Any]:
    options = options or CrawlOptions()
    policy = make_policy(settings, resolve, allow_private)
    accepted = accepted_targets(targets, policy)
    engine = open_store(settings)
    with Status("crawling…", console=output.err) if not quiet else _Silent() as status:
        def progress(stats: dict[str, Any]) -> None:
            if not quiet:
                status.update(f"crawling: {stats.get('sites', 0)}/{len(accepted)} sites, "
                              f"{stats.get('documents', 0)} documents, "
                              f"{stats.get('actions', 0)} actions, "
                              f"{stats.get('errors', 0)} errors")

        summary = run_crawl(accepted, settings, policy, progress=progress,
                            max_pages=options.max_pages, delay=options.delay)
    open_index(settings, engine)
    data = summary.model_dump() if hasattr(summary, "model_dump") else dict(vars(summary))
    data["kind"] = "crawl"
    return data


class _Silent:
    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, *_: object) -> None:
        return None
