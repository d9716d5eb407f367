"""A run's ``site_errors`` count a repeated code once, with its number (issue 21): a host
whose certificate no longer verifies fails every request of its crawl with ``tls-invalid``,
and the stored run (GET /sites/{host}'s last crawl) says so in one entry, not once per
request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from harness.certs import make_ca, self_signed, server_context
from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, Site, json_reply
from registry.config import Settings
from tests.hostile.run import crawl

pytestmark = pytest.mark.timeout(300)
BAD = "selfsigned.tls.test"


def test_a_run_stores_a_repeated_code_once_with_its_number(tmp_path: Path) -> None:
    make_ca(tmp_path)  # ca.crt: a bundle that does not trust the site's certificate
    bad = self_signed(tmp_path, BAD)
    both = tmp_path / "both.pem"  # ... and one that does: the site's good past
    both.write_bytes((tmp_path / "ca.crt").read_bytes() + bad.cert.read_bytes())
    site = Site(
        {
            "/robots.txt": Reply(404),
            "/.well-known/agent-actions.json": json_reply(agent_actions("an_action")),
        }
    )
    data = tmp_path / "data"
    with LoopbackWeb({BAD: site}, tls=server_context({BAD: bad})) as web:
        crawl(data, web, web.url(BAD), env={"SSL_CERT_FILE": str(both)})
        failed = crawl(data, web, web.url(BAD), env={"SSL_CERT_FILE": str(tmp_path / "ca.crt")})
    assert failed["per_site"][BAD]["errors"], failed["stderr"][-3000:]
    with TestClient(create_app(Settings(data_dir=data))) as client:
        stored = client.get(f"/sites/{BAD}").json()["last_crawl"]["site_errors"]
    assert len(stored) == len({code.split(" ", 1)[0] for code in stored}), stored  # once each
    [tls] = [code for code in stored if code.startswith("tls-invalid")]
    counted = re.fullmatch(r"tls-invalid \(([0-9]+) times\)", tls)
    assert counted and int(counted.group(1)) > 1, stored  # every request failed, counted
