"""Test tiers: every test is marked by what it needs, so `make test-fast` can pick the quick ones.

Markers (registered here, so `--strict-markers` accepts them):

- ``postgresql``: runs on the PostgreSQL leg (a BACKENDS parameter or a PG database fixture);
- ``browser``: drives headless chromium;
- ``crawl``: crawls a loopback web with the real crawler;
- ``process``: starts another process (``actiondex`` on the command line, ``serve``, workers);
- ``slow``: none of the above, but takes seconds on its own;
- ``fast``: none of the above. `make test-fast` runs ``-m fast``.

The rules go by folder, file and fixture, so a new test lands in the right tier without anyone
remembering to mark it. They are checked: under ``-m fast`` an audit hook fails any test that
starts a process, with a message saying where the rule belongs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
TIERS = ("postgresql", "browser", "crawl", "process", "slow")

# Folders whose every test crawls a loopback web or runs a cluster of processes.
CRAWL_FOLDERS = ("crawler", "distributed", "hostile")
# Test files (relative to tests/) whose tests start processes: the CLI, `serve`, workers.
PROCESS_FILES = {
    "actiondex/test_cli.py",
    "actiondex/test_cli_find.py",
    "actiondex/test_cli_doors.py",
    "actiondex/test_demo_lock.py",
    "actiondex/test_crawler_cli.py",
    "actiondex/test_doors.py",
    "actiondex/test_living_index.py",
    "actiondex/test_malloc_arenas.py",
    "actiondex/test_runs_cli.py",
    "actiondex/test_sites_cli.py",
    "actiondex/test_submit_cli.py",
    "actiondex/test_validate_cli.py",
    "actiondex/test_ingest.py",
    "actiondex/test_ingest_while_serving.py",
    "api/test_find_long.py",
    "api/test_mcp_stdio.py",
    "api/test_mcp_config.py",
    "api/test_observe.py",
    "api/test_ard_conformance.py",
    "api/test_body_limit.py",
    "api/test_proxies.py",
    "bench/test_realsites.py",
    "crawler/test_probes.py",
    "jobs/test_forked.py",
    "jobs/test_child.py",
    "jobs/test_reports.py",
    "jobs/test_retry.py",
    "registry/index/test_index_kill.py",
    "registry/test_blas_threads.py",
    "test_tiers.py",
    "test_private_postgres.py",
}
# Single tests that start a process or take seconds, inside otherwise quick files.
PROCESS_TESTS = {
    "api/test_mcp.py::test_the_address_served_on_is_allowed_by_default",
    "api/test_mcp.py::test_tools_are_listed_with_schemas_and_annotations",
    "api/test_mcp_parts.py::test_the_sdk_loads_only_when_mcp_is_asked",
    "api/test_csrf.py::test_a_page_elsewhere_cannot_submit_through_its_visitors_browser",
    "api/test_validate_slots.py::"
    "test_a_slow_site_holds_two_slots_of_one_client_for_the_deadline_only",
    "api/test_openapi.py::test_schemathesis_finds_nothing_against_a_live_server",
    "api/test_ratelimit.py::test_an_abusive_client_is_limited_and_the_others_are_not",
    "api/test_submissions_api.py::test_a_submission_is_queued_crawled_and_done",
    "api/test_submissions_api.py::test_failed_crawls_say_why",
    "api/test_validate_api.py::test_post_bad_urls_are_structured_errors",
    "api/test_validate_api.py::test_post_url_never_reaches_private_addresses",
    "api/test_validate_api.py::test_post_url_validates_a_site",
    "jobs/test_queue.py::test_sqlite_is_refused_in_one_line",
    "jobs/test_schema.py::test_never_on_sqlite",
    "registry/search/test_meaning_model.py::"
    "test_e5_end_to_end_and_a_change_of_model_makes_the_vectors_again",
    "registry/test_crawl_runs.py::test_the_sweep_aborts_silent_runs_and_runs_whose_process_is_gone",
    "registry/test_validate.py::test_registry_validate_is_framework_free",
    "web/test_validator_page.py::test_a_private_url_is_refused_as_post_validate_refuses_it",
    "web/test_validator_page.py::test_a_url_is_fetched_and_every_document_reported",
}
SLOW_TESTS: set[str] = set()
BROWSER_FIXTURES = {"browser", "page"}
# Fixtures that start `actiondex serve` (harness.procs serving).
PROCESS_FIXTURES = {"live"}
PG_FIXTURES = {"pg_database", "empty_pg_url"}
PROCESS_EVENTS = {
    "subprocess.Popen",
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "os.exec",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fast: starts no process, crawls nothing, SQLite only")
    config.addinivalue_line("markers", "postgresql: runs against the PostgreSQL server")
    config.addinivalue_line("markers", "browser: drives headless chromium")
    config.addinivalue_line("markers", "crawl: crawls a loopback web with the real crawler")
    config.addinivalue_line("markers", "process: starts another process")
    config.addinivalue_line("markers", "slow: takes seconds on its own")
    if _fast_only(config):
        sys.addaudithook(_audit)


def _fast_only(config: pytest.Config) -> bool:
    """``-m fast`` (or ``-m "fast and ..."``): only fast tests run, so the check is on."""
    return re.fullmatch(r"\s*fast(\s+and\s.*)?", config.getoption("markexpr", "") or "") is not None


def tiers_of(item: pytest.Item) -> set[str]:
    """The tiers a test belongs to, from where it lives and what it uses."""
    path = Path(str(item.fspath)).resolve()
    try:
        rel = path.relative_to(TESTS).as_posix()
    except ValueError:
        return {"process"}
    found: set[str] = set()
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    if names & PG_FIXTURES or (callspec and "postgresql" in callspec.params.values()):
        found.add("postgresql")
    if names & BROWSER_FIXTURES:
        found.add("browser")
    if rel.split("/")[0] in CRAWL_FOLDERS:
        found.add("crawl")
    test_id = f"{rel}::{item.name.split('[')[0]}"
    if rel in PROCESS_FILES or test_id in PROCESS_TESTS or names & PROCESS_FIXTURES:
        found.add("process")
    if test_id in SLOW_TESTS:
        found.add("slow")
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        found = tiers_of(item)
        for tier in sorted(found):
            item.add_marker(getattr(pytest.mark, tier))
        if not found:
            item.add_marker(pytest.mark.fast)


_started: list[str] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event in PROCESS_EVENTS:
        _started.append(event)


def _check(item: pytest.Item, phase: str) -> None:
    if _started:
        events = sorted(set(_started))
        _started.clear()
        pytest.fail(
            f"{item.nodeid} started a process ({', '.join(events)}) in its {phase} "
            "under -m fast: add its file to PROCESS_FILES or the test to PROCESS_TESTS "
            "in tests/tiers.py",
            pytrace=False,
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    _started.clear()
    result = yield
    if _fast_only(item.config):
        _check(item, "setup")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    _started.clear()
    result = yield
    if _fast_only(item.config):
        _check(item, "call")
    return result
