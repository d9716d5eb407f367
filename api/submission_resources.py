"""Request and response models of POST /submissions and GET /submissions/{id}: they exist
for the OpenAPI document and describe the dict api.routes.submissions answers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from registry.db.tables import Submission
from registry.model.schemas import StrictModel
from registry.model.statuses import OpenStatus, SubmissionStatus
from registry.model.urls import MAX_URL


class SubmissionRequest(StrictModel):
    """A site to crawl: a domain or an http(s) URL on it."""

    url: str = Field(
        min_length=1,
        max_length=MAX_URL,
        description="A domain (meaning https) or an http(s) URL, e.g. "
        "https://shop.example/; it must pass the crawler's address "
        "guard (public addresses only, web ports)",
    )


class FoundAction(StrictModel):
    id: str
    name: str
    title: str
    url: str = Field(description="The action's resource: /actions/{id}")


class SubmissionOut(StrictModel):
    """One submission. ``status``: queued (waiting for a crawl), crawling, done (the crawl
    found ``actions``) or failed (``reason`` says why: robots.txt, the site's errors, or
    nothing found)."""

    id: str = Field(description="An unguessable token: whoever holds it can follow it")
    url: str = Field(
        description="The site's homepage, where the crawl starts "
        "(scheme://host[:port]/: no path, query or fragment is kept)"
    )
    host: str
    status: SubmissionStatus
    reason: str | None
    errors: list[str] = Field(description="The crawl's diagnostic codes for the site")
    actions: list[FoundAction]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    link: str = Field(description="This submission: /submissions/{id}")


class SubmissionTaken(StrictModel):
    """The host already has a queued or crawling submission. Its id and URL are its
    submitter's: another submitter learns only that the host is on its way."""

    host: str
    status: OpenStatus


def taken_out(row: Submission) -> dict[str, Any]:
    """The answer to a duplicate: no id, no URL, nothing else of someone else's submission."""
    return {"host": row.host, "status": row.status}


def submission_out(row: Submission) -> dict[str, Any]:
    """The answer for ``row``, as JSON types."""

    def when(value: datetime | None) -> str | None:
        return None if value is None else value.isoformat() + "Z"  # the store keeps naive UTC

    return {
        "id": row.id,
        "url": row.url,
        "host": row.host,
        "status": row.status,
        "reason": row.reason,
        "errors": list(row.errors or []),
        "actions": [{**a, "url": f"/actions/{a['id']}"} for a in row.actions or []],
        "created_at": when(row.created_at),
        "started_at": when(row.started_at),
        "finished_at": when(row.finished_at),
        "link": f"/submissions/{row.id}",
    }
