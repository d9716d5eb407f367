"""Throwaway certificates for loopback HTTPS sites: a test CA, certificates it signs, and
self-signed ones (docs/RELIABILITY.md 21). Keys are small and short-lived; nothing leaves
tmp_path."""

from __future__ import annotations

import datetime
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Pem:
    cert: Path
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write(folder: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> Pem:
    pem = Pem(folder / f"{stem}.crt", folder / f"{stem}.key")
    pem.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return pem


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    signer: ec.EllipticCurvePrivateKey,
    ca: bool,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    # A common name holds at most 64 characters, and real hosts can be longer: TLS checks the
    # subject alternative name, which holds the whole host.
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject[:64]))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        usage = x509.KeyUsage(
            digital_signature=True,
            content_commitment=False,
            key_encipherment=False,
            data_encipherment=False,
            key_agreement=False,
            key_cert_sign=True,
            crl_sign=True,
            encipher_only=False,
            decipher_only=False,
        )
        builder = builder.add_extension(usage, critical=True)
    else:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
        )
    return builder.sign(signer, hashes.SHA256())


def make_ca(folder: Path) -> tuple[Pem, x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _certificate("actiondex test CA", key, _name("actiondex test CA"), key, ca=True)
    return _write(folder, "ca", cert, key), cert, key


def issue(
    folder: Path, host: str, ca_cert: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey
) -> Pem:
    key = ec.generate_private_key(ec.SECP256R1())
    return _write(folder, host, _certificate(host, key, ca_cert.subject, ca_key, ca=False), key)


def self_signed(folder: Path, host: str) -> Pem:
    key = ec.generate_private_key(ec.SECP256R1())
    return _write(folder, host, _certificate(host, key, _name(host), key, ca=False), key)


def server_context(by_host: dict[str, Pem]) -> ssl.SSLContext:
    """One server context that presents each host's certificate by SNI."""
    contexts = {}
    for host, pem in by_host.items():
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(pem.cert, pem.key)
        contexts[host] = context
    main = next(iter(contexts.values()))

    def choose(sock: ssl.SSLObject, server_name: str | None, _: ssl.SSLContext) -> None:
        if server_name in contexts:
            sock.context = contexts[server_name]

    main.sni_callback = choose
    return main
