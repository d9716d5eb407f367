"""Signs every request the crawler sends (HTTP Message Signatures, RFC 9421, as the IETF Web Bot
Auth draft profiles them; docs/RELIABILITY.md 55).

Each request carries ``Signature-Agent`` (the registry's origin, whose
``/.well-known/http-message-signatures-directory`` lists the public key) and a ``web-bot-auth``
Ed25519 signature over ``@authority`` and ``signature-agent`` whose ``keyid`` is the key's JWK
thumbprint, valid for a few minutes. A redirect or retry goes through ``process_request`` again
and is signed afresh for its own authority. The liveness probes (crawler/probes/polite.py) sign
each of their requests with the same key and the same headers.
"""

from __future__ import annotations

import base64
import secrets
import time
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.exceptions import NotConfigured

from crawler.settings import REGISTRY_SETTING
from registry.config import Settings
from registry.identity import SigningKey, key_path, load_or_create
from registry.model.urls import DEFAULT_PORTS

TAG = "web-bot-auth"
LABEL = "sig1"
LIFETIME = 300  # seconds a signature is valid


def authority(url: str) -> str:
    """RFC 9421 2.2.3: the host, lowercased, and the port unless it is the scheme's default."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host:
        raise ValueError(f"no host in {url!r}")
    host = f"[{host}]" if ":" in host else host
    port = parts.port
    return host if port in (None, DEFAULT_PORTS.get(parts.scheme)) else f"{host}:{port}"


class RequestSigner:
    """Builds the signature base itself (two components, RFC 9421 2.5): the general-purpose
    signer of http-message-signatures spends ~1.5 ms a request parsing what is known here; the
    test verifies every request with that package's verifier."""

    def __init__(self, key: SigningKey, agent: str) -> None:
        self.key = key
        self.agent = f'"{agent}"' if agent else ""  # an sf-string; PUBLIC_URL is an origin
        covered = '("@authority" "signature-agent")' if agent else '("@authority")'
        self.params = f'{covered};keyid="{key.thumbprint}";alg="ed25519";'

    def headers_for(self, url: str) -> dict[str, str]:
        """Signature-Agent (when the registry has a public URL), Signature-Input, Signature."""
        now = int(time.time())
        params = (
            f"{self.params}created={now};expires={now + LIFETIME};"
            f'nonce="{secrets.token_urlsafe(32)}";tag="{TAG}"'
        )
        lines = [f'"@authority": {authority(url)}']
        if self.agent:
            lines.append(f'"signature-agent": {self.agent}')
        lines.append(f'"@signature-params": {params}')
        signature = self.key.private.sign("\n".join(lines).encode("ascii"))
        headers = {"Signature-Agent": self.agent} if self.agent else {}
        headers["Signature-Input"] = f"{LABEL}={params}"
        headers["Signature"] = f"{LABEL}=:{base64.b64encode(signature).decode('ascii')}:"
        return headers


# Set by a fetch that stores nothing (`actiondex validate`, POST /validate): it signs with the
# store's key when there is one, and never makes one.
KEEPS_NOTHING = "ACTIONDEX_KEEPS_NOTHING"


def signer_for(settings: Settings, keeps_nothing: bool = False) -> RequestSigner | None:
    """The crawler's signer (the liveness probes sign with it too), or None when signing is
    off, or when a fetch that keeps nothing finds no key (it never makes one)."""
    if not settings.sign_requests or (keeps_nothing and not key_path(settings).exists()):
        return None
    return RequestSigner(load_or_create(settings), settings.public_url)


def signed(signer: RequestSigner, url: str) -> dict[str, str]:
    """The signature headers for ``url``; none for a URL without a host, or not ASCII (never
    from Scrapy nor httpx): sent unsigned."""
    try:
        return signer.headers_for(url)
    except (ValueError, UnicodeEncodeError):
        return {}


class SigningMiddleware:
    def __init__(self, signer: RequestSigner) -> None:
        self.signer = signer

    @classmethod
    def from_crawler(cls, crawler: Any) -> SigningMiddleware:
        settings: Settings | None = crawler.settings.get(REGISTRY_SETTING)
        if settings is None or not settings.sign_requests:
            raise NotConfigured("request signing is off")
        signer = signer_for(settings, keeps_nothing=crawler.settings.getbool(KEEPS_NOTHING))
        if signer is None:
            raise NotConfigured("a fetch that keeps nothing makes no key: sent unsigned")
        return cls(signer)

    def process_request(self, request: Request) -> None:
        for name, value in signed(self.signer, request.url).items():
            request.headers[name] = value
