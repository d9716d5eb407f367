"""Crawl targets: which site a domain or URL names, and whether the address guard lets it be
crawled. Plain types only, so the command line checks targets before anything is fetched."""

from __future__ import annotations

from crawler.guard import AddressPolicy
from registry.model.urls import intake_url, site_key
from registry.placement import origin_of


def target_url(target: str) -> str:
    """The URL a target means: a bare domain is its https homepage; a URL keeps its scheme and
    port. ValueError, in one line, for a target that names no http(s) site or that the intake
    check (registry.model.urls.intake_url: control characters, a port outside 1-65535) refuses."""
    url = intake_url(target)
    try:
        site_origin(url)
    except ValueError:
        raise ValueError(f"{target.strip()!r} is not a domain or an http(s) URL") from None
    return url


def site_origin(target: str) -> tuple[str, str]:
    """(site key, origin) of a target by the rule ingest and validate place files with
    (registry.placement.origin_of): a bare domain means https, the host is an A-label."""
    origin = origin_of(target)
    return site_key(origin), origin


def check_targets(targets: list[str], policy: AddressPolicy) -> tuple[list[str], list[str]]:
    """(the target URLs that may be crawled, one line for each refused or malformed one)."""
    accepted, refusals = [], []
    for target in targets:
        try:
            url = target_url(target)
        except ValueError as exc:
            refusals.append(str(exc))
            continue
        reason = policy.check_url(url)
        if reason:
            refusals.append(f"refused {url}: {reason}")
        else:
            accepted.append(url)
    return accepted, refusals
