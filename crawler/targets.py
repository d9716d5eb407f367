"""Crawl targets: which site a domain or URL names, and whether the address guard lets it be
crawled. Plain types only, so the command line checks targets before anything is fetched."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from crawler.guard import AddressPolicy
from registry.urls import a_label

# An A-label host name: letters, digits, hyphens (and the underscores some real hosts use),
# labels of 1-63 characters. Anything else ("not a url!!") names no site.
_LABEL = re.compile(r"^[a-z0-9_-]{1,63}$")


def target_url(target: str) -> str:
    """The URL a target means: a bare domain is its https homepage; a URL keeps its scheme and
    port. ValueError, in one line, for a target that names no http(s) site."""
    target = target.strip()
    url = target if "://" in target else f"https://{target}/"
    try:
        site_origin(url)
    except ValueError:
        raise ValueError(f"{target!r} is not a domain or an http(s) URL") from None
    return url


def site_origin(target: str) -> tuple[str, str]:
    """(host, origin) of a target: a bare domain means https; a URL keeps scheme and port.
    The host is an A-label (registry.urls.a_label): one site, one spelling."""
    try:
        parts = urlsplit(target if "://" in target else f"https://{target}")
        host = a_label((parts.hostname or "").rstrip("."))
        port = parts.port  # ValueError for a port out of range
    except ValueError:
        host, port, parts = "", None, urlsplit("")
    if parts.scheme not in ("http", "https") or not _valid_host(host):
        raise ValueError(f"{target!r} is not a domain or an http(s) URL")
    netloc = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    return host, f"{parts.scheme}://{netloc}{f':{port}' if port else ''}"


def _valid_host(host: str) -> bool:
    if ":" in host:  # urlsplit only yields a colon from a bracketed IPv6 literal
        return True
    labels = host.split(".")
    return 0 < len(host) <= 253 and all(_LABEL.match(label) for label in labels)


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
