"""Distributed crawling on procrastinate (a PostgreSQL task queue).

- app: the procrastinate App over the store's PostgreSQL database (SQLite is refused).
- schema: procrastinate's own tables, applied and upgraded by `actiondex migrate`.
- tasks: the crawl job (one site), its per-host lock and Crawl-delay across jobs.
- child: a crawl runs in a child process the worker supervises (Scrapy's reactor cannot
  restart in a process); the child dies with its worker and has a timeout.
- periodic: what `actiondex schedule` runs: enqueue due sites, retry stalled jobs, sweep
  abandoned crawl runs.
- hooks: what the queue asks the store (the schedule, submissions, the run sweep).

registry/ never imports this package: the queue is a deployment's choice, not the core's.
"""
