"""A crawler that says who it is (issue 23, item 4; docs/RELIABILITY.md 55): every request of a
real crawl carries a Web Bot Auth signature that a site verifies with a standard verifier
(http-message-signatures' HTTPMessageVerifier) and the public key it fetched from the API's key
directory; the key stays the same across crawls and is readable by its owner only; the
User-Agent names the page that says how to opt out; ACTIONDEX_SIGN_REQUESTS=false turns it off."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from http_message_signatures import HTTPMessageVerifier, InvalidSignature, algorithms

from api.app import create_app
from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, Site, json_reply
from registry.config import Settings
from tests.helpers.signatures import Directory, Message
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(300)
SHOP = "signed.shop.test"
REGISTRY = "http://registry.test:8000"
DIRECTORY = "/.well-known/http-message-signatures-directory"


def _site() -> Site:
    return Site(
        {
            "/robots.txt": Reply(404),
            "/.well-known/agent-actions.json": json_reply(agent_actions("signed_action")),
        }
    )


class Answer:
    def __init__(self, status: int, headers: dict[str, str], request: Message) -> None:
        self.status_code, self.headers, self.request = status, headers, request


def _fetch_directory(data: Path) -> tuple[Directory, str]:
    """The directory as a site fetches it from the registry, its own signature checked."""
    app = create_app(Settings(data_dir=data, public_url=REGISTRY))
    client = TestClient(app, base_url=REGISTRY)
    answer = client.get(DIRECTORY)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/http-message-signatures-directory+json"
    directory = Directory(answer.json())
    signed = Answer(200, dict(answer.headers), Message("GET", REGISTRY + DIRECTORY, {}))
    HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=directory).verify(
        signed,
        expect_tag="http-message-signatures-directory",
        require_components=('"@authority";req',),
    )
    about = client.get("/about/crawler")
    assert about.status_code == 200 and "User-agent: actiondex" in about.text
    return directory, answer.json()["keys"][0]["kid"]


def _verify_every_request(web: LoopbackWeb, directory: Directory) -> set[str]:
    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=directory)
    keyids = set()
    asked = [(path, headers) for host, path, headers in web.log if host == SHOP]
    assert asked, "the crawl asked the site for nothing"
    for path, headers in asked:
        headers = {k: v for k, v in headers.items() if not k.startswith("_")}
        assert headers["User-Agent"] == f"actiondex/0.1 (+{REGISTRY}/about/crawler)"
        assert headers["Signature-Agent"] == f'"{REGISTRY}"'
        request = Message("GET", f"http://{headers['Host']}{path}", headers)
        (result,) = verifier.verify(
            request, expect_tag="web-bot-auth", require_components=("@authority", "signature-agent")
        )
        assert result.parameters["expires"] - result.parameters["created"] <= 300
        keyids.add(result.parameters["keyid"])
    return keyids


def test_every_request_is_signed_verifiably_with_one_kept_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"ACTIONDEX_PUBLIC_URL": REGISTRY}
    with LoopbackWeb({SHOP: _site()}) as web:
        first = crawl(data, web, web.url(SHOP), env=env)
        assert first["per_site"][SHOP]["errors"] == [], first["stderr"][-3000:]
        key_file = data / "signing-key.jwk"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        directory, kid = _fetch_directory(data)
        assert _verify_every_request(web, directory) == {kid}
        web.log.clear()

        again = crawl(data, web, web.url(SHOP), env=env)
        assert again["per_site"][SHOP]["errors"] == [], again["stderr"][-3000:]
        # The next run signs with the key the first one made, which the directory still lists.
        assert _verify_every_request(web, directory) == {kid}
        assert _fetch_directory(data)[1] == kid
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        # The private key is in no log line.
        private = json.loads(key_file.read_text())["d"]
        assert private not in first["stderr"] + again["stderr"]


def test_signing_is_off_when_the_setting_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with LoopbackWeb({SHOP: _site()}) as web:
        summary = crawl(data, web, web.url(SHOP), env={"ACTIONDEX_SIGN_REQUESTS": "false"})
    assert summary["per_site"][SHOP]["errors"] == [], summary["stderr"][-3000:]
    sent = [headers for host, _, headers in web.log if host == SHOP]
    assert sent and not any("Signature" in h or "Signature-Input" in h for h in sent)
    assert not (data / "signing-key.jwk").exists()


@pytest.mark.parametrize(
    ("url", "agent"),
    [
        ("https://Shop.Example/a?b=1", REGISTRY),  # default port left out, host lowercased
        ("https://shop.example:8443/", REGISTRY),
        ("http://[2001:db8::1]:8080/x", REGISTRY),
        ("http://shop.example:80/", ""),  # no PUBLIC_URL: no Signature-Agent, @authority only
    ],
)
def test_the_signer_builds_what_a_standard_verifier_accepts(
    tmp_path: Path, url: str, agent: str
) -> None:
    from crawler.signing import RequestSigner
    from registry.identity import load_or_create

    key = load_or_create(Settings(data_dir=tmp_path))
    headers = RequestSigner(key, agent).headers_for(url)
    directory = Directory(key.directory())
    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=directory)
    required = ("@authority", "signature-agent") if agent else ("@authority",)
    (result,) = verifier.verify(
        Message("GET", url, headers), expect_tag="web-bot-auth", require_components=required
    )
    assert result.parameters["keyid"] == key.thumbprint
    assert ("Signature-Agent" in headers) == bool(agent)
    # Another authority, the same headers: refused.
    with pytest.raises(InvalidSignature):
        verifier.verify(Message("GET", "https://elsewhere.example/", headers))
