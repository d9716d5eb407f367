"""The states a crawl run and a submission go through: one definition, which the store checks
and the API's documents list (api/run_resources.py, api/submission_resources.py)."""

from __future__ import annotations

from typing import Literal, get_args

RunStatus = Literal["running", "finished", "failed", "aborted"]
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)

# Queued (waiting for a crawl), crawling, then done (actions found) or failed (with a reason).
OpenStatus = Literal["queued", "crawling"]  # one open submission per host
SubmissionStatus = Literal[OpenStatus, "done", "failed"]
OPEN: tuple[str, ...] = get_args(OpenStatus)
