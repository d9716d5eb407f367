"""The longest tests start first, so that under `-n` (pytest-xdist) they run beside the many
short ones rather than after them: one started last would alone set the suite's wall time.

xdist hands out work in collection order, so this moves the tests of LONG to the front, in
LONG's order, and keeps every other test where it was. The list comes from `--durations`
on this kind of machine (2 cores); each entry must still name a test file, which
tests/test_ordering.py checks, so a rename cannot leave it silently pointing at nothing.
"""

from __future__ import annotations

import pytest

# Test files (relative to tests/), longest first; figures from a whole-suite run, 2 cores.
LONG = (
    "distributed/test_distributed.py",  # two workers and the scheduler over 100 sites
    "distributed/test_outage.py",  # a 90 s database outage under the cluster
    "crawler/test_crawler_hostile.py",  # the hostile web's crawl, set up once
    "registry/index/test_index_kill.py",  # rebuilds killed mid-way
    "crawler/test_probes.py",  # the probes' loopback web, on both databases
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(LONG)}

    def key(indexed: tuple[int, pytest.Item]) -> tuple[int, int]:
        n, item = indexed
        rel = item.nodeid.split("::")[0].removeprefix("tests/")
        return (rank.get(rel, len(LONG)), n)

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]
