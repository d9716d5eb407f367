"""Other documents a manifest points at (a helper of the facade, not a format).

A format module calls ``refs.get(url)`` for a document it would like to read (the OpenAPI
behind an agents.json, an api-catalog's service-desc). The URL is always recorded in
``Manifest.references`` so the crawler can fetch it; the data comes back only when the caller
of ``normalise`` passed a ``resolve`` function that has the document (the crawler's second
pass, a test's fixture folder). Resolved documents go through the same size and depth guards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from registry.formats._load import Unusable, load
from registry.model.schemas import Diagnostic
from registry.model.urls import absolute

# resolve(url) -> the document's bytes, or None when it is not (yet) available
Resolve = Callable[[str], bytes | None]
# names_a_manifest(url) -> whether a link's file name is one some format is published under
# (the facade's, which knows every format; a format module cannot import the facade back)
NamesAManifest = Callable[[str], bool]
MAX_REFERENCES = 32
MAX_RESOLVED = 8  # documents read per manifest: bounds the work one document can cause


class References:
    def __init__(
        self,
        base_url: str,
        resolve: Resolve | None = None,
        names_a_manifest: NamesAManifest = lambda url: False,
    ) -> None:
        self.base_url = base_url
        self.names_a_manifest = names_a_manifest
        self.urls: list[str] = []
        self._resolve = resolve
        self._cache: dict[str, Any] = {}

    def add(self, value: Any) -> str | None:
        """Record a reference (relative URLs against the document); its absolute URL."""
        url = absolute(value, self.base_url)
        if url is None or "{" in url:
            return None
        url = url.split("#", 1)[0]
        if url not in self.urls and url != self.base_url and len(self.urls) < MAX_REFERENCES:
            self.urls.append(url)
        return url

    def get(self, value: Any, path: str, diags: list[Diagnostic]) -> Any | None:
        """The referenced document's data, or None (recorded either way)."""
        url = self.add(value)
        if url is None or self._resolve is None:
            return None
        if url in self._cache:
            return self._cache[url]
        if len(self._cache) >= MAX_RESOLVED:
            diags.append(
                Diagnostic(
                    code="too-many-references",
                    path=path,
                    severity="info",
                    message=f"only {MAX_RESOLVED} referenced documents are read",
                )
            )
            return None
        self._cache[url] = data = self._load(url, path, diags)
        return data

    def _load(self, url: str, path: str, diags: list[Diagnostic]) -> Any | None:
        try:
            body = self._resolve(url) if self._resolve else None
        except Exception:  # a resolver failing is a missing document, not a crash
            body = None
        if body is None:
            return None
        try:
            return load(body)[0]
        except Unusable as exc:
            diags.append(
                exc.diagnostic.model_copy(
                    update={"path": path, "message": f"{url}: {exc.diagnostic.message}"}
                )
            )
            return None
