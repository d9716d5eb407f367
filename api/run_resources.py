"""Response models of GET /runs and GET /runs/{id} (beside api/resources.py, which holds the
other resources'): the dicts registry.store.runs makes, ``extra="forbid"``."""

from __future__ import annotations

from pydantic import Field

from registry.model.schemas import StrictModel
from registry.model.statuses import RunStatus


class Run(StrictModel):
    id: int
    kind: str = Field(description="crawl or ingest")
    status: RunStatus = Field(
        description="running; finished; failed (it raised); aborted "
        "(a signal stopped it, or it died and was swept)"
    )
    owner: str | None = Field(description='Who ran it: "hostname:pid"')
    started_at: str | None
    finished_at: str | None
    heartbeat_at: str | None = Field(description="When the run last said it was alive")
    targets: int = Field(description="How many targets the run was given")
    sites: int | None = Field(description="Sites it stored (null until it ends)")
    documents: int | None
    actions: int | None
    flows: int | None
    errors: int | None
    requests: int | None = Field(description="HTTP requests sent, retries and redirects too")
    refused: int | None = Field(description="Requests the address guard refused")
    seconds: float | None
    changed_sites: list[str] = Field(description="Sites whose action set this run changed")
    aborted: str | None = Field(description="Why a sweep ended it, when one did")


class RunPage(StrictModel):
    items: list[Run]
    next_cursor: str | None = Field(description="The next (older) page's cursor; null on the last")
