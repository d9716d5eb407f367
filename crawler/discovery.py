"""What the spider asks for after robots.txt, and what each answer leads to.

Well-known paths come from the format modules (``registry.formats.well_known_paths``), so a new
format's paths are probed without touching the crawler. Sitemaps, links and references are
followed only on the site itself, except the references of formats whose spec points across
hosts (an ai-plugin's ``api.url``, an api-catalog's ``service-desc``, ARD entries).
"""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

from scrapy import Request
from scrapy.http import Response

from crawler.links import header_links, html_links, pick_pages
from crawler.responses import response_is_html, to_document
from crawler.sitemaps import MAX_DEPTH, SitemapError, parse_sitemap
from crawler.sitestate import MAX_SITEMAP_FILES, SiteState, fingerprint
from registry.formats import legacy_paths, references_cross_hosts, well_known_paths
from registry.model.schemas import RawDocument
from registry.normalising import normalise_alone

Follow = list[Request | None]


class Ask(Protocol):
    """The spider's ``request``: a request within the site's budget and robots rules, or None."""

    def __call__(self, site: SiteState, url: str, kind: str, **meta: Any) -> Request | None: ...


class Discovery:
    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        # A predecessor path (ARD's ai-catalog.json) is asked for only when its successor is
        # missing: a site serving both would list every entry twice.
        self.legacy = legacy_paths()
        self.paths = [p for p in well_known_paths() if p != "/" and p not in self.legacy.values()]

    def _get(self, site: SiteState, url: str, kind: str, **meta: Any) -> Request | None:
        return self.ask(site, url, kind, **meta)

    def start(self, site: SiteState) -> Follow:
        """The guesses (well-known paths, /sitemap.xml unless robots.txt names sitemaps: each
        on its own schedule once it answered 404), the homepage and what robots.txt names."""
        origin, robots = site.crawl.origin, site.robots
        follow = [self._get(site, origin + path, "manifest", guess=True) for path in self.paths]
        follow += [
            r
            for path in self.paths
            if site.memory.missing(origin + path)
            for r in self.instead_of_missing(site, origin + path)
        ]
        follow.append(self._get(site, origin + "/", "page"))
        follow += [self._get(site, u, "manifest") for u in self._local(site, robots.agentmaps)]
        maps = self._local(site, robots.sitemaps)
        follow += [self._sitemap(site, url, "sitemap", 1) for url in maps]
        if not maps:
            follow.append(self._sitemap(site, origin + "/sitemap.xml", "sitemap", 1, guess=True))
        follow += [
            self._sitemap(site, u, "schemamap", 1) for u in self._local(site, robots.schemamaps)
        ]
        return follow

    def instead_of_missing(self, site: SiteState, url: str) -> Follow:
        """The predecessor of a well-known path that answered 404 (or did within a day)."""
        path = url.removeprefix(site.crawl.origin)
        old = self.legacy.get(path) if path != url else None
        return [self._get(site, site.crawl.origin + old, "manifest", guess=True)] if old else []

    def _local(self, site: SiteState, urls: list[str], base: str | None = None) -> list[str]:
        """Absolute URLs on the site's own origin (sitemaps.org's single-host rule)."""
        base = base or site.crawl.origin + "/"
        absolute = [urljoin(base, u).split("#", 1)[0] for u in urls]
        local = [u for u in absolute if _origin(u) == site.crawl.origin]
        if len(local) < len(absolute):
            site.note_once(
                base, "cross-host-url", f"{len(absolute) - len(local)} URLs on another host ignored"
            )
        return local

    def _sitemap(
        self, site: SiteState, url: str, kind: str, depth: int, guess: bool = False
    ) -> Request | None:
        if site.sitemap_files >= MAX_SITEMAP_FILES:
            site.note_once(url, "sitemap-limit", f"only {MAX_SITEMAP_FILES} sitemap files read")
            return None
        site.sitemap_files += 1
        return self._get(site, url, kind, guess=guess, sitemap_depth=depth)

    def on_manifest(self, site: SiteState, response: Response) -> Follow:
        if site.catch_all and (
            fingerprint(response.body) == site.catch_all or response_is_html(response)
        ):
            site.note_once(
                response.url,
                "catch-all",
                "the site answers every path with the same page; well-known answers ignored",
            )
            if response.meta.get("guess"):
                site.memory.remember_missing(response.request.url)  # as good as a 404
            return []
        return self._keep(site, response, follow_refs=True)

    def on_page(self, site: SiteState, response: Response) -> Follow:
        follow = self._keep(site, response, follow_refs=False)
        if response_is_html(response):
            links = self._local(site, html_links(response.body, response.url), response.url)
            follow += [self._get(site, url, "manifest") for url in links]
        return follow

    def on_reference(self, site: SiteState, response: Response) -> Follow:
        site.references[response.request.url] = site.references[response.url] = response.body
        return self._references(site, response.url, response.body)

    def _keep(self, site: SiteState, response: Response, follow_refs: bool) -> Follow:
        document = to_document(response)
        if document is not None:
            site.crawl.documents.append(document)
        links = header_links(response.headers.getlist("Link"), response.url)
        follow = [self._get(site, url, "manifest") for url in self._local(site, links)]
        if follow_refs and document is not None and not response_is_html(response):
            follow += self._references(site, response.url, document.body)
        return follow

    def _references(self, site: SiteState, url: str, body: bytes) -> Follow:
        # The store reuses this pass (registry.normalising.normalise_site) unless the document
        # can read one of the crawl's documents by then.
        first = site.crawl.first_pass[url] = normalise_alone(
            RawDocument(url=url, body=body), site.crawl.host
        )
        manifest = first.manifest
        refs = manifest.references
        if not references_cross_hosts(manifest.format):
            refs = [u for u in refs if _origin(u) == site.crawl.origin]
        return [self._get(site, ref, "reference") for ref in refs]

    def on_sitemap(self, site: SiteState, response: Response) -> Follow:
        sitemap = self._parse(site, response)
        if sitemap is None:
            return []
        locs = self._local(site, sitemap.locs, response.url)
        depth = response.meta["sitemap_depth"]  # not "depth": DepthMiddleware owns it
        if sitemap.is_index:
            if depth >= MAX_DEPTH:
                site.note_once(
                    response.url,
                    "sitemap-depth",
                    f"sitemap indexes nest deeper than {MAX_DEPTH}; not followed",
                )
                return []
            return [self._sitemap(site, u, "sitemap", depth + 1) for u in locs]
        known = [u for u in locs if urlsplit(u).path.startswith("/.well-known/")]
        follow = [self._get(site, u, "manifest") for u in known]
        pages = pick_pages(
            [u for u in locs if u not in site.seen and u not in known], site.pages_left
        )
        site.pages_left -= len(pages)
        return follow + [self._get(site, u, "page") for u in pages]

    def on_schemamap(self, site: SiteState, response: Response) -> Follow:
        sitemap = self._parse(site, response)
        locs = self._local(site, sitemap.locs, response.url) if sitemap else []
        return [self._get(site, u, "manifest") for u in locs[: site.pages_left]]

    def _parse(self, site: SiteState, response: Response) -> Any:
        try:
            sitemap = parse_sitemap(response.body)
        except SitemapError as exc:
            site.note(response.url, exc.code, str(exc), response.status)
            return None
        if sitemap.dropped:
            site.note(
                response.url,
                "sitemap-url-limit",
                f"{sitemap.dropped} URLs past the first 50,000 ignored",
            )
        return sitemap


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.lower()}"
