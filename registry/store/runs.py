"""Crawl runs as the API and `actiondex runs` list them: newest first, a status filter,
pages by cursor (the id the last page ended before), each run with its figures."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import CrawlRun
from registry.model.statuses import RUN_STATUSES
from registry.store.keyset import newest_first
from registry.store.site_list import iso

# The figures a run records when it ends (crawler.run.CrawlSummary.totals), in this order.
FIGURES = ("sites", "documents", "actions", "flows", "errors", "requests", "refused", "seconds")


class BadRunQuery(ValueError):
    """A status that names nothing a run can have."""


def run_record(run: CrawlRun) -> dict[str, Any]:
    """One run with its figures; the per-site lists stay out except the changed sites."""
    stats = run.stats or {}
    changed = stats.get("changed_sites")
    return {
        "id": run.id,
        "kind": run.kind,
        "status": run.status,
        "owner": run.owner,
        "started_at": iso(run.started_at),
        "finished_at": iso(run.finished_at),
        "heartbeat_at": iso(run.heartbeat_at),
        "targets": len(run.targets or []),
        **{name: stats.get(name) for name in FIGURES},
        "changed_sites": changed if isinstance(changed, list) else [],
        "aborted": stats.get("aborted"),
    }


def list_runs(
    session: Session, limit: int = 50, cursor: str | None = None, status: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """(runs newest first, the cursor of the next page or None on the last); BadCursor
    (registry.store.keyset) for a cursor not handed out."""
    if status is not None and status not in RUN_STATUSES:
        raise BadRunQuery(f"status must be one of {', '.join(RUN_STATUSES)}, not {status!r}")
    query = select(CrawlRun)
    if status is not None:
        query = query.where(CrawlRun.status == status)
    page, after = newest_first(session, query, CrawlRun.id, limit, cursor)
    return [run_record(run) for run in page], after


def get_run(session: Session, run_id: int) -> dict[str, Any] | None:
    run = session.get(CrawlRun, run_id)
    return None if run is None else run_record(run)
