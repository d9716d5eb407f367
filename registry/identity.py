"""The crawler's signing key (Web Bot Auth, docs/RELIABILITY.md 55): one Ed25519 key, made once
and kept beside the store's settings in ``<data dir>/signing-key.jwk`` (mode 0600), and the
public half as the JWKS the API serves at ``/.well-known/http-message-signatures-directory``.

The private key never leaves this module but as a cryptography key object; nothing here logs it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from registry.config import Settings

KEY_FILE = "signing-key.jwk"
DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"
DIRECTORY_MEDIA_TYPE = "application/http-message-signatures-directory+json"


class SigningKeyError(Exception):
    """The key file exists but cannot be used; the message is one line."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class SigningKey:
    private: Ed25519PrivateKey

    @property
    def x(self) -> str:
        raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return _b64(raw)

    @property
    def thumbprint(self) -> str:
        """The JWK SHA-256 thumbprint (RFC 7638): the ``keyid`` of every signature."""
        canonical = json.dumps(
            {"crv": "Ed25519", "kty": "OKP", "x": self.x}, separators=(",", ":"), sort_keys=True
        )
        return _b64(hashlib.sha256(canonical.encode("ascii")).digest())

    def public_jwk(self) -> dict[str, str]:
        return {
            "kty": "OKP",
            "crv": "Ed25519",
            "x": self.x,
            "kid": self.thumbprint,
            "alg": "EdDSA",
            "use": "sig",
        }

    def directory(self) -> dict[str, Any]:
        """The key directory: a JWKS with the public key only."""
        return {"keys": [self.public_jwk()]}

    # The key resolver HTTPMessageSigner asks (one key, whatever the keyid).
    def resolve_private_key(self, key_id: str) -> Ed25519PrivateKey:
        return self.private

    def resolve_public_key(self, key_id: str) -> Ed25519PublicKey:
        return self.private.public_key()

    def __repr__(self) -> str:  # never the private half, in a log line or a traceback
        return f"SigningKey(kid={self.thumbprint!r})"


def key_path(settings: Settings) -> Path:
    return settings.data_dir / KEY_FILE


def _read(path: Path) -> SigningKey:
    try:
        jwk = json.loads(path.read_text(encoding="ascii"))
        if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            raise ValueError("not an Ed25519 key")
        return SigningKey(Ed25519PrivateKey.from_private_bytes(_unb64(jwk["d"])))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SigningKeyError(f"{path}: not a usable Ed25519 signing key ({exc})") from None


def load_or_create(settings: Settings) -> SigningKey:
    """The store's signing key, made on first use, mode 0600 from its first byte,
    so two processes starting at once keep the one written first and it is never world-readable;
    an existing file readable by others is tightened to 0600."""
    path = key_path(settings)
    if path.exists():
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        return _read(path)
    key = SigningKey(Ed25519PrivateKey.generate())
    body = json.dumps({**key.public_jwk(), "d": _b64(key.private.private_bytes_raw())})
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written whole under a private name, then linked into place: a process starting beside
    # this one never reads half a key, and os.link fails rather than replace one already there.
    draft = path.with_name(f".{KEY_FILE}.{os.getpid()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(body)
        os.link(draft, path)
    except FileExistsError:
        return _read(path)
    finally:
        draft.unlink(missing_ok=True)
    return key
