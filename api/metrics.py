"""GET /metrics: Prometheus text. Beside the request series (api.observe), what an operator
watches: the index's documents and generation, how long since it last caught up with the
store, and the last crawl run's figures. Read at scrape time, so they are never stale."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC

from prometheus_client import CollectorRegistry, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from registry.db.tables import CrawlRun
from registry.index import ActionIndex

# The numeric figures a crawl run records (crawler.run.CrawlSummary) that are worth a series.
RUN_FIGURES = ("sites", "documents", "actions", "flows", "errors", "requests", "refused", "seconds")


class StoreCollector(Collector):
    def __init__(
        self, index: Callable[[], ActionIndex | None], last_run: Callable[[], CrawlRun | None]
    ) -> None:
        self.index = index
        self.last_run = last_run

    def collect(self) -> Iterator[GaugeMetricFamily]:
        # A broken index or an absent store (/readyz says which) leaves out their series,
        # never the request series beside them.
        index = self.index()
        try:
            series = list(_index_series(index)) if index is not None else []
        except OSError:
            series = []
        yield from series
        try:
            run = self.last_run()
        except Exception:
            run = None
        if run is not None:
            yield from _run_series(run)


def _index_series(index: ActionIndex) -> Iterator[GaugeMetricFamily]:
    docs = GaugeMetricFamily(
        "actiondex_index_documents", "Documents in the index by kind", labels=["kind"]
    )
    for kind in ("action", "flow"):
        docs.add_metric([kind], index.count(kind))
    yield docs
    yield GaugeMetricFamily(
        "actiondex_index_generation", "The index generation serving", value=index.generation
    )
    if index.synced_at is not None:
        yield GaugeMetricFamily(
            "actiondex_index_age_seconds",
            "Seconds since the index last caught up with the store (the follower syncs every "
            "few seconds; a growing value means syncs fail)",
            value=time.time() - index.synced_at,
        )


def _run_series(run: CrawlRun) -> Iterator[GaugeMetricFamily]:
    figures = GaugeMetricFamily(
        "actiondex_last_crawl", "The last crawl run's figures", labels=["figure"]
    )
    stats = run.stats or {}
    for name in RUN_FIGURES:
        value = stats.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            figures.add_metric([name], value)
    figures.add_metric(["changed_sites"], len(stats.get("changed_sites") or ()))
    yield figures
    yield GaugeMetricFamily(
        "actiondex_last_crawl_ok",
        "1 if the last crawl run finished, 0 if it failed",
        value=int(run.status == "finished"),
    )
    if run.finished_at is not None:  # the store keeps naive UTC
        yield GaugeMetricFamily(
            "actiondex_last_crawl_finished_timestamp_seconds",
            "When the last crawl run ended (Unix time)",
            value=run.finished_at.replace(tzinfo=UTC).timestamp(),
        )


def new_registry() -> CollectorRegistry:
    # No ``*_created`` series (one more line per label set, and nothing watches them).
    disable_created_metrics()
    # No auto_describe: it would read the store and the index when the app is built.
    return CollectorRegistry(auto_describe=False)
