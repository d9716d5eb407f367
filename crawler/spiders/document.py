"""DocumentSpider: one document and the documents it references, for ``actiondex validate URL``.

It yields exactly one item: ``(RawDocument, {url: body})`` for the document and the references
it read, a FetchFailure when it could not be read, or (an HTML page without Schema.org items)
its URL as a plain string.
"""

from __future__ import annotations

from typing import Any

from scrapy import Request, Spider
from scrapy.http import Response
from twisted.python.failure import Failure

from crawler.responses import classify, to_document
from registry.formats import MAX_BYTES, MAX_RESOLVED, normalise
from registry.model.schemas import FetchFailure, RawDocument


class DocumentSpider(Spider):
    """Fetches one document and what it references (one level, at most MAX_RESOLVED), so an
    ai-plugin.json is checked with the OpenAPI behind it.

    robots.txt is not consulted: the owner named this URL to check it, the way a browser
    would fetch it; the address guard and size limits still apply (they live in settings).
    """

    name = "validate-document"

    def __init__(self, url: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.url = url
        self.document: RawDocument | None = None
        self.references: dict[str, bytes] = {}
        self.pending = 0

    async def start(self) -> Any:
        yield Request(self.url, callback=self.parse, errback=self.failed, dont_filter=True)

    def parse(self, response: Response, **_: Any) -> Any:
        try:
            self.document = to_document(response)
        except Exception as exc:  # hostile markup: report it, as the site spider does
            yield FetchFailure(
                url=response.url,
                status=response.status,
                code="extract-error",
                message=str(exc)[:300],
            )
            return
        if self.document is None:  # an HTML page without Schema.org items
            yield response.url
            return
        refs = normalise(self.document).references[:MAX_RESOLVED]
        if not refs:
            yield self.document, self.references
        self.pending = len(refs)
        for ref in refs:
            yield Request(
                ref,
                callback=self.referenced,
                errback=self.unresolved,
                meta={"download_maxsize": MAX_BYTES},
                dont_filter=True,
            )

    def referenced(self, response: Response, **_: Any) -> Any:
        self.references[response.request.url] = response.body
        yield from self.unresolved(None)

    def unresolved(self, _: Failure | None) -> Any:
        # A reference that fails stays unresolved; the report's diagnostics say so.
        self.pending -= 1
        if self.pending == 0:
            yield self.document, self.references

    def failed(self, failure: Failure) -> Any:
        status, code, message = classify(failure)
        yield FetchFailure(url=failure.request.url, status=status, code=code, message=message)
