"""`actiondex schedule` and `actiondex worker`: distributed crawling on PostgreSQL
(the work: actiondex/jobs/)."""

from __future__ import annotations

import asyncio
import inspect
import os
import socket
from typing import Annotated, Any

import typer

from actiondex.commands.options import load_settings
from actiondex.jobs import WORKER_BATCH, WORKER_CONCURRENCY
from actiondex.runtime import UserError, open_store
from registry.config import Settings

VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose", help="Also log procrastinate's own lines (jobs fetched, heartbeats)."
    ),
]
ShutdownOpt = Annotated[
    float,
    typer.Option(
        "--shutdown-timeout",
        min=0.0,
        help="On SIGTERM or SIGINT: seconds running jobs may take to finish before they are "
        "aborted (their crawl child is stopped).",
    ),
]


def _paragraphs(command: Any) -> Any:
    """The help shows each docstring paragraph as one wrapped paragraph."""
    text = inspect.cleandoc(command.__doc__ or "")
    command.__doc__ = "\n\n".join(" ".join(p.split()) for p in text.split("\n\n"))
    return command


@_paragraphs
def worker(
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            min=1,
            max=1024,
            envvar="ACTIONDEX_WORKER_CONCURRENCY",
            help="Crawl jobs (sites) in flight at once, in child processes of up to --batch "
            "sites each.",
        ),
    ] = WORKER_CONCURRENCY,
    batch: Annotated[
        int,
        typer.Option(
            "--batch",
            min=1,
            max=1024,
            envvar="ACTIONDEX_WORKER_BATCH",
            help="Sites one crawl child crawls at most: the jobs taken within half a second "
            "share a child, and at most concurrency/batch children run at once (1: a child "
            "per site).",
        ),
    ] = WORKER_BATCH,
    name: Annotated[
        str | None,
        typer.Option("--name", help="This worker's name in logs and jobs (HOST-PID if not given)."),
    ] = None,
    delay: Annotated[
        float,
        typer.Option(
            "--delay",
            min=0.0,
            envvar="ACTIONDEX_WORKER_DELAY",
            help="Minimum seconds between requests to one host, in each crawl (a robots.txt "
            "Crawl-delay wins).",
        ),
    ] = 1.0,
    max_pages: Annotated[
        int, typer.Option("--max-pages", min=0, help="HTML pages read per site from its sitemaps.")
    ] = 50,
    fresh: Annotated[
        bool,
        typer.Option(
            "--exec",
            help="Start each crawl child as a fresh interpreter instead of forking it "
            "from one that has the crawler imported already (slower start, nothing shared).",
        ),
    ] = False,
    shutdown_timeout: ShutdownOpt = 30.0,
    verbose: VerboseOpt = False,
) -> None:
    """Run crawl jobs from the PostgreSQL queue until stopped (SIGTERM or SIGINT).

    Start any number of workers on any number of machines over one database: two never crawl
    one host at once, and a host's Crawl-delay holds across jobs. Each job is one site; the
    jobs a worker takes at the same moment are crawled together by one child process
    (`actiondex crawl --due SITE...`, up to --batch sites) that dies with the worker, and each
    job ends when its child reports its site stored. Logs go to stderr, a line per site and
    one per child.

    A database outage is waited out (retries 1 s doubling to 30 s), with one line when the
    database goes and one when it is back.
    """
    from actiondex.jobs.tasks import CrawlKnobs

    knobs = CrawlKnobs(
        delay=delay, max_pages=max_pages, fresh=fresh, batch=batch, concurrency=concurrency
    )
    settings, app = _prepare(knobs)
    label = name or f"{socket.gethostname()}-{os.getpid()}"
    from actiondex.jobs.app import CRAWL_QUEUE

    if not fresh:
        from actiondex.jobs.forked import warm_up

        warm_up()

    _run(app, settings, label, [CRAWL_QUEUE], concurrency, shutdown_timeout, verbose)


@_paragraphs
def schedule(
    shutdown_timeout: ShutdownOpt = 30.0,
    verbose: VerboseOpt = False,
) -> None:
    """Enqueue due sites as crawl jobs, and retry the jobs of dead workers, until stopped.

    Every ACTIONDEX_SCHEDULE_INTERVAL seconds: the sites that are due (pending submissions
    first) become crawl jobs, at most one queued per site. Every ACTIONDEX_STALLED_INTERVAL
    seconds: jobs of workers silent for ACTIONDEX_STALLED_AFTER seconds go back to the queue
    and crawl runs their children left `running` are marked aborted. PostgreSQL only; more
    than one scheduler may run. Logs go to stderr. A database outage is waited out, as by the
    workers.
    """
    settings, app = _prepare()
    from actiondex.jobs.app import SCHEDULE_QUEUE
    from actiondex.jobs.periodic import register_periodic

    register_periodic(app, settings)
    label = f"scheduler-{socket.gethostname()}-{os.getpid()}"
    _run(app, settings, label, [SCHEDULE_QUEUE], 2, shutdown_timeout, verbose)


def _prepare(knobs: Any = None) -> tuple[Settings, Any]:
    """Settings, then PostgreSQL with both schemas in place, or one line saying what is not."""
    from actiondex.jobs.app import conninfo, make_app
    from actiondex.jobs.schema import newest_migration

    settings = load_settings()
    conninfo(settings)  # refuses SQLite before anything connects
    engine = open_store(settings, auto_migrate=False)
    with engine.connect() as conn:
        queue = conn.exec_driver_sql("SELECT to_regclass('procrastinate_jobs')").scalar()
    engine.dispose()
    if queue is None:
        raise UserError(
            f"the task queue schema ({newest_migration()}) is not in the "
            "database: run `actiondex migrate` first"
        )
    return settings, make_app(settings, knobs)


def _run(
    app: Any,
    settings: Settings,
    name: str,
    queues: list[str],
    concurrency: int,
    shutdown_timeout: float,
    verbose: bool,
) -> None:
    from actiondex.jobs.app import log_to_stderr

    log_to_stderr(verbose)

    async def main() -> None:
        async with app.open_async():
            await app.run_worker_async(
                queues=queues,
                name=name,
                concurrency=concurrency,
                wait=True,
                install_signal_handlers=True,
                shutdown_graceful_timeout=shutdown_timeout,
                update_heartbeat_interval=settings.heartbeat_interval,
                stalled_worker_timeout=settings.stalled_after,
                # A job that succeeded is deleted as it ends: kept, they piled up in the queue's
                # table (a recrawl and a scheduler tick each, 100,000s a day), and procrastinate's
                # fetch, which looks at the jobs of every waiting host, slowed with them (10,000
                # sites: 0.4 s a fetch, a worker taking 7 jobs a second). Failed ones stay.
                delete_jobs="successful",
            )

    from actiondex import output

    output.info(f"{name}: started on queues {', '.join(queues)} (concurrency {concurrency})")
    asyncio.run(main())
    output.info(f"{name}: stopped")
