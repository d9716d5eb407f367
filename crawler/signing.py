"""Signs every request the crawler sends (HTTP Message Signatures, RFC 9421, as the IETF Web Bot
Auth draft profiles them; docs/RELIABILITY.md 54).

Each request carries ``Signature-Agent`` (the registry's origin, whose
``/.well-known/http-message-signatures-directory`` lists the public key) and a ``web-bot-auth``
Ed25519 signature over ``@authority`` and ``signature-agent`` whose ``keyid`` is the key's JWK
thumbprint, valid for a few minutes. A redirect or retry goes through ``process_request`` again
and is signed afresh for its own authority.
"""

from __future__ import annotations

import datetime
import secrets
from typing import Any

from http_message_signatures import (
    HTTPMessageSignaturesException,
    HTTPMessageSigner,
    algorithms,
)
from scrapy import Request
from scrapy.exceptions import NotConfigured

from crawler.settings import REGISTRY_SETTING
from registry.config import Settings
from registry.identity import SigningKey, load_or_create

TAG = "web-bot-auth"
LABEL = "sig1"
LIFETIME = datetime.timedelta(minutes=5)


class _Headers(dict[str, str]):
    """What the signer reads and writes: str names and values."""


class _Message:
    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.method = "GET"  # the resolver reads it; @method is not covered
        self.url = url
        self.headers = _Headers(headers)


class RequestSigner:
    def __init__(self, key: SigningKey, agent: str) -> None:
        self.key = key
        self.agent = agent
        self.signer = HTTPMessageSigner(signature_algorithm=algorithms.ED25519, key_resolver=key)

    def headers_for(self, url: str) -> dict[str, str]:
        """Signature-Agent (when the registry has a public URL), Signature-Input, Signature."""
        message = _Message(url, {"Signature-Agent": f'"{self.agent}"'} if self.agent else {})
        now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
        self.signer.sign(
            message,
            key_id=self.key.thumbprint,
            created=now,
            expires=now + LIFETIME,
            nonce=secrets.token_urlsafe(32),
            label=LABEL,
            tag=TAG,
            covered_component_ids=("@authority", "signature-agent")
            if self.agent
            else ("@authority",),
        )
        return dict(message.headers)


class SigningMiddleware:
    def __init__(self, signer: RequestSigner) -> None:
        self.signer = signer

    @classmethod
    def from_crawler(cls, crawler: Any) -> SigningMiddleware:
        settings: Settings | None = crawler.settings.get(REGISTRY_SETTING)
        if settings is None or not settings.sign_requests:
            raise NotConfigured("request signing is off")
        return cls(RequestSigner(load_or_create(settings), settings.public_url))

    def process_request(self, request: Request) -> None:
        try:
            headers = self.signer.headers_for(request.url)
        except HTTPMessageSignaturesException:
            return  # a URL the signer cannot express (RFC 9421's syntax) goes out unsigned
        for name, value in headers.items():
            request.headers[name] = value
