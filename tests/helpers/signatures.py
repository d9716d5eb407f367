"""A site's side of Web Bot Auth in tests: the keys it learnt from the registry's key directory
and the request shape http-message-signatures' verifier reads."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Directory:
    """The keys a site learnt from the registry's directory, by RFC 7638 thumbprint."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        self.keys: dict[str, Ed25519PublicKey] = {}
        for jwk in jwks["keys"]:
            assert (jwk["kty"], jwk["crv"]) == ("OKP", "Ed25519") and "d" not in jwk
            members = {"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"]}
            digest = hashlib.sha256(json.dumps(members, separators=(",", ":")).encode()).digest()
            kid = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            self.keys[kid] = Ed25519PublicKey.from_public_bytes(_b64(jwk["x"]))

    def resolve_public_key(self, key_id: str) -> Ed25519PublicKey:
        return self.keys[key_id]

    def resolve_private_key(self, key_id: str) -> None:
        raise AssertionError("a verifier never asks for a private key")


class Message:
    def __init__(self, method: str, url: str, headers: dict[str, str]) -> None:
        self.method, self.url, self.headers = method, url, headers
