"""`actiondex validate`, the validator a site owner runs before publishing, on files, sites and
the corpus (its reports: tests/registry/test_validate.py; POST /validate: tests/api/).

Sites are served from tests/fixtures/validate/sites by the demo web on loopback and reached
with --resolve; the guard is proven by asking for loopback without it and counting requests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from actiondex.demo.web import DemoWeb
from actiondex.validating import validate_file
from tests.helpers.paths import CORPUS, INVENTORY
from tests.helpers.validate import FILES, REPORT_KEYS, SITES, codes, resolve_flags

pytestmark = pytest.mark.timeout(300)


def validate(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACTIONDEX_DATA_DIR": str(data_dir)}
    env.pop("ACTIONDEX_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "actiondex", "validate", *args],
        env=env,
        text=True,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def web() -> Iterator[DemoWeb]:
    with DemoWeb(root=SITES) as served:
        yield served


# -- the command on files --------------------------------------------------------------------


def test_file_json_is_exactly_the_report(data_dir: Path) -> None:
    proc = validate(data_dir, str(FILES / "shop.json"), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert set(report) == REPORT_KEYS and report["format"] == "agent-actions"
    assert list(data_dir.iterdir()) == []  # nothing stored, not even an empty database


def test_errors_exit_1_and_read_well(data_dir: Path) -> None:
    proc = validate(data_dir, str(FILES / "broken.json"))
    assert proc.returncode == 1
    assert "json-parse-error" in proc.stdout and "fix:" in proc.stdout
    assert "1 error" in proc.stdout


def test_pages_are_read_for_schemaorg(data_dir: Path) -> None:
    page = json.loads(validate(data_dir, str(FILES / "page.html"), "--json").stdout)
    assert page["format"] == "schemaorg" and page["actions"][0]["type"] == "SearchAction"
    assert page["actions"][0]["same_origin"]  # the site came from the page's WebSite url
    bare = json.loads(validate(data_dir, str(FILES / "bare.html"), "--json").stdout)
    assert codes(bare) == {"no-actions": "warning"}


def test_a_file_without_a_site_is_checked_without_one(data_dir: Path) -> None:
    report = json.loads(validate(data_dir, str(FILES / "no-site.json"), "--json").stdout)
    assert codes(report) == {"site-unknown": "info"}
    proc = validate(
        data_dir, str(FILES / "no-site.json"), "--origin", "https://ping.example", "--json"
    )
    assert codes(json.loads(proc.stdout)) == {}  # api.ping.example is a subdomain: fine


def test_references_are_read_from_files_beside_it() -> None:
    """An ai-plugin.json checked with the OpenAPI it will be served beside."""
    report = validate_file(FILES / "site" / ".well-known" / "ai-plugin.json", None)
    assert report.url == "https://inkpot.example/.well-known/ai-plugin.json"
    assert {a.name for a in report.actions} == {"inkpot", "searchInks"}


@pytest.mark.parametrize(
    "args,expect",
    [
        (["./no/such/file.json"], "no such file"),
        (["http://127.0.0.1:9/"], "refused http://127.0.0.1:9/"),
        (["http://shop.invalid:0/"], "port that is not a number from 1 to 65535"),
        (["https://shop.invalid/a%0d%0ab.json"], "control characters"),
        (["http://127%2e0.0.1:9/"], "is not a domain or an http(s) URL"),  # was exit 1, traceback
        (["shop.test", "--resolve", "nonsense"], "--resolve"),
        ([str(FILES / "shop.json"), "--origin", "ftp://x"], "--origin"),
        ([str(FILES / "shop.json"), "--origin", "https://x.example:0"], "port that is not"),
    ],
)
def test_bad_input_exits_2_with_one_line(data_dir: Path, args: list[str], expect: str) -> None:
    proc = validate(data_dir, *args)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and expect in lines[0], proc.stderr


# -- the command on sites and URLs -----------------------------------------------------------


def test_site_is_fetched_like_the_crawler_but_not_stored(web: DemoWeb, data_dir: Path) -> None:
    proc = validate(data_dir, f"http://owner.test:{web.port}/", "--json", *resolve_flags(web))
    assert proc.returncode == 1, proc.stderr  # the broken ai-plugin.json is an error
    report = json.loads(proc.stdout)
    # The site's key: the demo web is not on port 80 (docs/RELIABILITY.md 59)
    assert report["site"] == f"owner.test:{web.port}" and set(report) == {"site", "documents"}
    docs = {d["url"].rsplit("/", 1)[-1]: d for d in report["documents"]}
    assert all(set(d) == REPORT_KEYS | {"url"} for d in docs.values())
    assert docs["agent-actions.json"]["format"] == "agent-actions"
    assert len(docs["agent-actions.json"]["actions"]) == 2
    assert "unknown-action" in codes(docs["agent-actions.json"])
    assert codes(docs["ai-plugin.json"]) == {"json-parse-error": "error"}
    assert codes(docs["agents.json"]) == {"robots-disallowed": "warning"}
    assert ("owner.test", "/.well-known/agents.json") not in web.requests()
    assert list(data_dir.iterdir()) == []


def test_good_site_exits_0_and_document_urls_work(web: DemoWeb, data_dir: Path) -> None:
    proc = validate(data_dir, f"http://fine.test:{web.port}/", *resolve_flags(web))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Search Fine Books" in proc.stdout and "No errors" in proc.stdout
    # one document, read with the OpenAPI it references
    url = f"http://inkpot.test:{web.port}/.well-known/ai-plugin.json"
    proc = validate(data_dir, url, "--json", *resolve_flags(web))
    report = json.loads(proc.stdout)
    assert set(report) == REPORT_KEYS | {"url"} and report["url"] == url
    assert {a["name"] for a in report["actions"]} == {"inkpot", "searchInks"}
    missing = validate(data_dir, url.replace("ai-plugin", "nope"), *resolve_flags(web))
    assert missing.returncode == 1 and "not-found" in missing.stdout


# -- the corpus' broken files, read in place ---------------------------------------------------

BROKEN = {  # file -> (format, a diagnostic code it must carry, words its message or hint has)
    "openai-plugin-store/results/apim_expedia_com__expedia.api.yaml": (
        "unknown",
        "empty-document",
        "empty",
    ),
    "openai-plugin-store/results/chatgpt-plugin_canva_com__canva.api.yaml": (
        "unknown",
        "json-parse-error",
        "HTML page",
    ),
    "openai-plugin-store/results/plugin_astro-insights_net__astroinsights.api.yaml": (
        "unknown",
        "unknown-format",
        "error response",
    ),
    "openai-plugin-store/results/idou_me__idou.api.yaml": ("unknown", "unknown-format", "JSON"),
    "openai-plugin-store/results/bitcoin_orrenprunckun_com__BitcoinSentiment.api.yaml": (
        "openapi",
        "missing-field",
        "openapi",
    ),
    "sites/ai-village-agents__ai-village-agents.github.io/.well-known/agents.json": (
        "agents-json",
        "no-actions",
        "actions",
    ),
    "sites/perwinroth__cosyhotels/public/.well-known/agents.json": (
        "agents-json",
        "no-actions",
        "actions",
    ),
    "sites/ai-village-agents__ai-village-agents.github.io/.well-known/ai-agent.json": (
        "unknown",
        "unknown-format",
        "format",
    ),
}
ADHOC_WITH_ACTIONS = [
    "sites/110kc3__seo/.well-known/agents.json",
    "sites/pochtmanr__dopplervpn/public/.well-known/agents.json",
    "sites/xinetex__agentcache.ai/public/.well-known/agents.json",
    "sites/Bidz-nl__agentdiscovery.io/public/.well-known/agent.json",
]


@pytest.mark.skipif(not INVENTORY.is_file(), reason=f"no corpus at {CORPUS}")
@pytest.mark.parametrize("path", sorted(BROKEN))
def test_corpus_broken_files_get_useful_answers(data_dir: Path, path: str) -> None:
    fmt, code, words = BROKEN[path]
    proc = validate(data_dir, str(CORPUS / path), "--json")
    report = json.loads(proc.stdout)
    assert report["format"] == fmt and proc.returncode == (0 if fmt == "openapi" else 1)
    [found] = [d for d in report["diagnostics"] if d["code"] == code][:1]
    assert found["hint"] and words.lower() in (found["message"] + found["hint"]).lower()


@pytest.mark.skipif(not INVENTORY.is_file(), reason=f"no corpus at {CORPUS}")
@pytest.mark.parametrize("path", ADHOC_WITH_ACTIONS)
def test_corpus_adhoc_agents_json_shows_its_actions(path: str) -> None:
    report = validate_file(CORPUS / path, None)
    assert report.format == "agents-json" and report.actions and report.ok


@pytest.mark.skipif(not INVENTORY.is_file(), reason=f"no corpus at {CORPUS}")
def test_every_broken_corpus_file_says_what_to_fix() -> None:
    """Each malformed API spec and ad-hoc agents.json yields actions or a problem with a fix."""
    variants = {
        "failed-or-malformed-api-spec",
        "agents-json-adhoc",
        "agents-json-adhoc(list)",
        "agent-json-adhoc",
        "ai-agent-json-adhoc",
    }
    entries = [e for e in json.loads(INVENTORY.read_text()) if e.get("variant") in variants]
    silent = []
    for entry in entries:
        report = validate_file(CORPUS / entry["path"], None)
        if not report.actions and not any(
            d.hint and d.severity != "info" for d in report.diagnostics
        ):
            silent.append(entry["path"])
    assert len(entries) >= 20 and not silent, silent
