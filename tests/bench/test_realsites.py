"""bench.realsites end to end on six real plugin-store records: served under their real names,
crawled by `actiondex crawl`, answered by a real `actiondex serve` over HTTP. It checks the
pipeline found the sites (and the OpenAPI a manifest names on another host), not a score."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.http_find import Finder, serving
from bench.realsite_web import STORE, RealWeb, load_plugins
from bench.realsites import crawl, score

pytestmark = pytest.mark.timeout(120)
# Two with a good OpenAPI (kayak.com's on www.kayak.com), one whose OpenAPI URL answered an
# error JSON, three with a manifest only.
HOSTS = (
    "kayak.com",
    "api.speak.com",
    "opentable.com",
    "biztoc.com",
    "coursera.org",
    "aichat.doordash.com",
)
REQUESTS = [
    {"query": "how do I say thank you very much in Japanese", "relevant": ["api.speak.com"]},
    {"query": "find me a cheap flight from Boston to Lisbon next month", "relevant": ["kayak.com"]},
]


@pytest.fixture(scope="module")
def plugins() -> list:
    if not (STORE / "resultsArray.json").is_file():
        pytest.skip(f"no plugin-store corpus at {STORE} (../shared is absent)")
    if os.geteuid() != 0:
        pytest.skip("the real-site web listens on port 443 of a loopback address: needs root")
    return [p for p in load_plugins() if p.host in HOSTS]


def test_the_real_sites_are_crawled_and_found_over_http(plugins: list, tmp_path: Path) -> None:
    assert sorted(p.host for p in plugins) == sorted(HOSTS)
    with RealWeb(plugins, tmp_path / "certs") as web:
        summary = crawl(web, tmp_path, list(HOSTS))
        asked = {(host, path) for host, path, _ in web.log}
    actions = {row["host"]: row["actions"] for row in summary["per_site"]}
    assert set(actions) == set(HOSTS), summary
    assert all(actions.values()), actions
    # The OpenAPI named on another host was fetched there and read: more than the plugin action.
    assert ("www.kayak.com", "/.well-known/openapi.yaml") in asked, sorted(asked)
    assert actions["kayak.com"] > 1 and actions["opentable.com"] == 1, actions
    with serving(tmp_path) as base:
        finder = Finder(base)
        for plugin in plugins:  # each site is in the served index, under its real name
            found = finder.results(plugin.manifest["name_for_human"], 10, site=plugin.host)
            assert {r["site"] for r in found or []} == {plugin.host}, plugin.host
        scores = score(finder.sites, REQUESTS)
        ranked = finder.sites(REQUESTS[0]["query"])
        finder.close()
    assert set(ranked) <= set(HOSTS) and ranked, ranked
    assert finder.refused == 0 and len(finder.times_ms) == len(HOSTS) + len(REQUESTS) + 1
    assert 0.0 <= scores.ndcg10 <= 1.0


def test_the_training_requests_leave_out_the_test_sample_and_the_fitted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bench import realsite_requests
    from bench.fusion_bench import metatool_split

    single = [{"qid": f"s{i}", "query": f"request {i}", "relevant": ["tool"]} for i in range(6000)]
    multi = [{"qid": "m0", "query": "two things", "relevant": ["tool", "other"]}]
    loaded = ([], [("single-tool requests", single), ("multi-tool requests", multi)])
    monkeypatch.setattr(realsite_requests.metatool, "load", lambda root: loaded)
    monkeypatch.setattr(
        realsite_requests, "metatool_sites", lambda plugins, root: {"tool": ["t.example"]}
    )
    [(title, train)] = realsite_requests.metatool_sets([], Path("."), False, train=True)
    fitted, test = metatool_split(single, realsite_requests.TEST_SAMPLE, realsite_requests.FITTED)
    used = {q["query"] for q in fitted + test}
    assert "training" in title
    assert len(train) == 6000 - 2000 - 3000
    assert not used & {q["query"] for q in train}
    everything = realsite_requests.metatool_sets([], Path("."), False)
    assert [len(requests) for _, requests in everything] == [6000, 0]  # "other" maps nowhere
