"""What actiondex sees of a document or a site: the validator's reports. Pure: no store writes.

A site owner runs this before publishing (``actiondex validate``, ``POST /validate``). The
report is the normalised manifest as agents will see it, plus every diagnostic with its JSON
path and fix hint; ``ok`` means no error-severity diagnostic. A site report also turns the
crawl's fetch failures into diagnostics, because "robots.txt hides your manifest" is as much
a publishing mistake as bad JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from registry.formats import PAGE_FORMAT, normalise, well_known_paths
from registry.model.schemas import Action, Diagnostic, FetchFailure, Flow, RawDocument, SiteCrawl
from registry.model.urls import site_key
from registry.normalising import normalise_site
from registry.placement import CONFUSABLE_HINT, UNKNOWN_ORIGIN, Placed

# The site we say when nobody told us where a local file will be published.
UNKNOWN_SITE = site_key(UNKNOWN_ORIGIN)
# Fetch failures that only mean "this site does not publish that file": not worth a report.
_ABSENT = frozenset({"not-found"})
# Failures that keep agents from a document the site serves; anything else the crawler notes
# (robots-disallowed, robots-truncated, a 403 from a firewall...) is a warning, so a new
# crawler code never fails a site owner's check by surprise.
_ERRORS = frozenset(
    {
        "blocked-address",
        "tls-invalid",
        "too-large",
        "timeout",
        "network-error",
        "connection-refused",
        "dns-error",
        "extract-error",
        "robots-unavailable",
        "too-many-redirects",
        "rate-limited",
    }
)
_FAILURE_HINTS = {
    "robots-disallowed": "allow actiondex (or all agents) to read this path in robots.txt",
    "robots-unavailable": "serve robots.txt (a 404 is fine); a 5xx or timeout hides the site",
    "blocked-address": "publish on a public address; actiondex never connects to private ones",
    "tls-invalid": "serve a certificate for this host name from a public certificate "
    "authority, not expired, with its full chain",
    "confusable-host": CONFUSABLE_HINT,
    "too-large": "keep manifests under 1 MiB",
    "timeout": "make the document answer within the crawler's timeout",
    "network-error": "check that the host name resolves and the server accepts connections",
    "connection-refused": "start the server, or check the port: nothing accepts connections",
    "dns-error": "publish DNS records (A or AAAA) for this host name, or check its spelling",
    "rate-limited": "let actiondex through your rate limits (it sends few requests)",
    "http-error": "serve the document with status 200",
    "not-found": "publish the document at this URL, or check the URL",
}


class ValidationReport(BaseModel):
    """One document as agents will see it. ``public()`` is the wire form."""

    url: str
    site: str
    format: str
    actions: list[Action] = Field(default_factory=list)
    flows: list[Flow] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)

    def public(self, with_url: bool = False) -> dict[str, Any]:
        body = self.model_dump(mode="json", include={"format", "actions", "flows", "diagnostics"})
        return {"url": self.url, **body} if with_url else body


class SiteReport(BaseModel):
    site: str
    documents: list[ValidationReport] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(report.ok for report in self.documents)

    def public(self) -> dict[str, Any]:
        return {"site": self.site, "documents": [d.public(with_url=True) for d in self.documents]}


def validate_document(
    doc: RawDocument, site: str | None = None, resolve: Any = None
) -> ValidationReport:
    """Normalise ``doc`` (never raises) and keep what a publisher needs to see."""
    manifest = normalise(doc, site=site, resolve=resolve)
    return ValidationReport(
        url=doc.url,
        site=manifest.site,
        format=manifest.format,
        actions=manifest.actions,
        flows=manifest.flows,
        diagnostics=[*manifest.diagnostics, *_nothing_for_agents(manifest)],
    )


def _nothing_for_agents(manifest: Any) -> list[Diagnostic]:
    """A manifest of a known format (or a page with Schema.org items) holding no action, no
    flow and no reference to another document: say so, unless the format said it already."""
    if manifest.format == "unknown" or manifest.actions or manifest.flows or manifest.references:
        return []
    if any(d.code == "no-actions" for d in manifest.diagnostics):
        return []
    return [
        Diagnostic(
            code="no-actions",
            severity="warning",
            message="agents will find no action here: the document lists none",
            hint="list at least one action agents can call",
        )
    ]


def validate_placed(placed: Placed, resolve: Any = None) -> ValidationReport:
    """A local document's report (placed by registry.placement, as ingest places it): what
    its host name risks comes first; a page without Schema.org says how to add some."""
    if placed.document is None:
        report = bare_page(placed.url)
    else:
        report = validate_document(placed.document, resolve=resolve)
    if not placed.named:
        report = _unplaced(_without_site_checks(report))
    return report.model_copy(update={"diagnostics": [*placed.diagnostics, *report.diagnostics]})


def _unplaced(report: ValidationReport) -> ValidationReport:
    """A report of a document no site was given for shows its endpoints as the document
    wrote them (``/a``, not the placeholder's ``https://unknown.invalid/a``), and its
    diagnostics say "the site", never the placeholder's name."""

    def said(text: str | None) -> str | None:
        if not text:
            return text
        return text.replace(UNKNOWN_ORIGIN, "").replace(UNKNOWN_SITE, "the site")

    actions = [
        a.model_copy(update={"endpoint": said(a.endpoint) or "/"}) if a.endpoint else a
        for a in report.actions
    ]
    diagnostics = [
        d.model_copy(update={"message": said(d.message), "hint": said(d.hint)})
        for d in report.diagnostics
    ]
    return report.model_copy(update={"actions": actions, "diagnostics": diagnostics})


def bare_page(url: str) -> ValidationReport:
    """An HTML page with no Schema.org markup at all: nothing for agents, say how to fix it."""
    return ValidationReport(
        url=url,
        site=site_key(url),
        format=PAGE_FORMAT,
        diagnostics=[
            Diagnostic(
                code="no-actions",
                severity="warning",
                message="the page has no Schema.org JSON-LD, microdata or RDFa",
                hint="add a potentialAction (e.g. a WebSite SearchAction) in JSON-LD",
            )
        ],
    )


def _without_site_checks(report: ValidationReport) -> ValidationReport:
    """Every endpoint is "cross-origin" to a placeholder site: say so once instead."""
    kept = [d for d in report.diagnostics if d.code != "cross-origin-endpoint"]
    if len(kept) == len(report.diagnostics):
        return report
    kept.insert(
        0,
        Diagnostic(
            code="site-unknown",
            severity="info",
            message=("the document names no site, so endpoints were not checked against one"),
            hint="give the site the document is published on (--origin, or ?origin= on "
            "POST /validate), or add its url to the manifest",
        ),
    )
    return report.model_copy(update={"diagnostics": kept})


def validate_site(crawl: SiteCrawl) -> SiteReport:
    """Every document the crawl found, as the store keeps it, plus its fetch failures.

    The documents go through registry.normalising.normalise_site, the store's own path, so the
    report is what agents will see: a document another one reads (the OpenAPI behind an
    ai-plugin) is reported under its referrer, not a second time on its own.
    """
    update = normalise_site(crawl)
    reports = [
        ValidationReport(
            url=doc.raw.url,
            site=doc.manifest.site,
            format=doc.manifest.format,
            actions=doc.manifest.actions,
            flows=doc.manifest.flows,
            diagnostics=doc.manifest.diagnostics,
        )
        for doc in update.documents
        if doc.read_by is None
    ]
    reports += [failure_report(f, crawl.host) for f in crawl.failures if f.code not in _ABSENT]
    if not any(r.actions or r.flows for r in reports):
        reports.append(_nothing_found(crawl))
    return SiteReport(site=crawl.host, documents=reports)


def failure_report(
    failure: FetchFailure, site: str | None = None, named: bool = False
) -> ValidationReport:
    """A document that could not be read, as a report with one diagnostic saying why.

    ``named``: the owner asked for this very URL, so any failure is an error; a well-known
    path the crawler merely tried is an error only when it keeps agents from a document.
    """
    server_error = failure.code == "http-error" and (failure.status or 500) >= 500
    error = named or failure.code in _ERRORS or server_error
    message = failure.message or failure.code
    if failure.status and str(failure.status) not in message:
        message += f" (HTTP {failure.status})"
    diagnostic = Diagnostic(
        code=failure.code,
        path="$",
        severity="error" if error else "warning",
        message=f"could not read it: {message}",
        hint=_FAILURE_HINTS.get(failure.code),
    )
    return ValidationReport(
        url=failure.url,
        site=site or site_key(failure.url),
        format="unknown",
        diagnostics=[diagnostic],
    )


def _nothing_found(crawl: SiteCrawl) -> ValidationReport:
    looked = "robots.txt, the well-known manifest paths and the homepage"
    diagnostic = Diagnostic(
        code="no-actions",
        severity="error",
        message=f"agents will find no action on {crawl.host}: actiondex read {looked}",
        # the first format's path: agent-actions/0.1, the one that says the most
        hint=f"publish {well_known_paths()[0]}, or Schema.org potentialAction JSON-LD on "
        "the homepage",
    )
    return ValidationReport(
        url=crawl.origin + "/", site=crawl.host, format="unknown", diagnostics=[diagnostic]
    )
