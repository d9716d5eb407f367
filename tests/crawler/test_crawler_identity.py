"""Who a site is (docs/RELIABILITY.md 20, 21): a host whose TLS certificate does not verify is
refused as ``tls-invalid`` and keeps what an earlier good crawl stored; a homograph host is
stored under its A-label, flagged ``confusable-host`` and kept apart from the site it imitates."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.certs import issue, make_ca, self_signed, server_context
from harness.styles import agent_actions
from harness.web import LoopbackWeb, Reply, Site, json_reply
from tests.hostile.run import action_names, crawl

pytestmark = pytest.mark.timeout(300)
GOOD, BAD = "good.tls.test", "selfsigned.tls.test"


def _site(name: str) -> Site:
    return Site(
        {
            "/robots.txt": Reply(404),
            "/.well-known/agent-actions.json": json_reply(agent_actions(name)),
        }
    )


def test_a_certificate_that_does_not_verify_is_refused_and_the_last_good_version_kept(
    tmp_path: Path,
) -> None:
    _, ca_cert, ca_key = make_ca(tmp_path)
    good, bad = issue(tmp_path, GOOD, ca_cert, ca_key), self_signed(tmp_path, BAD)
    ca_only = tmp_path / "ca-only.pem"
    ca_only.write_bytes((tmp_path / "ca.crt").read_bytes())
    # A bundle that also trusts the self-signed certificate: the site's "good" past.
    both = tmp_path / "both.pem"
    both.write_bytes(ca_only.read_bytes() + bad.cert.read_bytes())
    data = tmp_path / "data"
    sites = {GOOD: _site("good_action"), BAD: _site("selfsigned_action")}
    with LoopbackWeb(sites, tls=server_context({GOOD: good, BAD: bad})) as web:
        targets = (web.url(GOOD), web.url(BAD))

        trusted = crawl(data, web, *targets, env={"SSL_CERT_FILE": str(both)})
        assert trusted["per_site"][BAD]["errors"] == [], trusted["per_site"][BAD]
        assert action_names(data) == {GOOD: {"good_action"}, BAD: {"selfsigned_action"}}
        asked_before = len(web.requests(BAD))

        summary = crawl(data, web, *targets, env={"SSL_CERT_FILE": str(ca_only)})

    assert summary["per_site"][GOOD]["errors"] == []
    assert "tls-invalid" in summary["per_site"][BAD]["errors"], summary["stderr"][-3000:]
    # The handshake failed, so no request reached the server (and none was retried into it).
    assert len(web.requests(BAD)) == asked_before
    # Nothing lost: the failed crawl neither blanked nor replaced the site's stored actions.
    assert action_names(data) == {GOOD: {"good_action"}, BAD: {"selfsigned_action"}}


def test_a_homograph_host_is_stored_as_its_a_label_flagged_and_kept_apart(
    tmp_path: Path,
) -> None:
    """docs/RELIABILITY.md 20: "pаypal.test" with a Cyrillic "а" beside the real paypal.test."""
    spoof = "xn--pypal-4ve.test"  # the A-label of "p\u0430ypal.test"
    sites = {"paypal.test": _site("real_action"), spoof: _site("spoof_action")}
    with LoopbackWeb(sites) as web:
        summary = crawl(
            tmp_path,
            web,
            web.url("paypal.test"),
            f"http://p\u0430ypal.test:{web.port}/",
            resolve=(f"p\u0430ypal.test:{web.port}:127.0.0.1",),
        )
    assert set(summary["per_site"]) == {"paypal.test", spoof}
    assert "confusable-host" in summary["per_site"][spoof]["errors"]
    assert summary["per_site"]["paypal.test"]["errors"] == []
    assert action_names(tmp_path) == {"paypal.test": {"real_action"}, spoof: {"spoof_action"}}
