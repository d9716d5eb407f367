"""`actiondex submit` and the address check `actiondex serve` gives POST /submissions: a
submitted URL passes the crawler's own guard (crawler.targets.check_targets, the policy of
the settings) before a submission is stored. The operator's CLI is not rate limited."""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import Engine

from actiondex import output
from actiondex.policy import Refused, make_policy
from actiondex.runtime import open_store
from api.routes.submissions import TargetCheck
from api.submission_resources import submission_out
from crawler.guard import AddressPolicy
from crawler.targets import check_targets
from registry.config import Settings
from registry.db.engine import transaction
from registry.store.rows import utcnow
from registry.submissions.queue import submit


def policy_check(policy: AddressPolicy) -> TargetCheck:
    """The target URL a submitted domain or URL means; ValueError, one line, when the
    address guard refuses it or it names no http(s) site."""

    def check(text: str) -> str:
        accepted, refusals = check_targets([text], policy)
        if refusals:
            raise ValueError(refusals[0])
        return accepted[0]

    return check


def target_check(settings: Settings) -> TargetCheck:
    """The check of ACTIONDEX_RESOLVE / ACTIONDEX_ALLOW_PRIVATE (what `serve` hands the API)."""
    return policy_check(make_policy(settings, [], None))


def run(
    url: str,
    resolve: list[str],
    allow_private: bool | None,
    settings: Callable[[], Settings],
    as_json: bool,
) -> None:
    config = settings()
    try:
        target = policy_check(make_policy(config, resolve, allow_private))(url)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    engine = open_store(config)
    try:
        data, created = _submit(engine, target)
    finally:
        engine.dispose()
    if as_json:
        print(json.dumps({**data, "created": created}, sort_keys=True))
        return
    said = "queued" if created else f"already {data['status']}"
    output.out.print(
        f"{said}: {data['url']} (submission {data['id']}); {who_crawls(engine, config)}",
        soft_wrap=True,
        markup=False,
    )


def who_crawls(engine: Engine, settings: Settings) -> str:
    """What picks a submission up on this backend: on PostgreSQL the scheduler and the crawl
    workers; the embedded store has neither, so a `crawl --due` run (by hand or cron)."""
    if engine.dialect.name == "postgresql":
        return (
            "the scheduler (`actiondex schedule`) hands it to a crawl worker (`actiondex "
            f"worker`) within {settings.schedule_interval} s (ACTIONDEX_SCHEDULE_INTERVAL)"
        )
    return "it is crawled by the next `actiondex crawl --due` (by hand, or from cron)"


def _submit(engine: Engine, target: str) -> tuple[dict[str, object], bool]:
    with transaction(engine) as session:
        row, created = submit(session, target, utcnow())
        return submission_out(row), created
