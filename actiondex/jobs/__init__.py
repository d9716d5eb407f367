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

# `actiondex worker`'s defaults (actiondex.jobs.tasks.CrawlKnobs and the CLI's options): 1,024
# sites in flight, crawled by children of up to 512 each. Measured, `bench.worker_scale
# --sites 2000` (README, "Running at scale"): at 128 and 64 two workers took 1.5-1.7x one
# `crawl --due` process, the many small children's starts (~0.2 CPU s each) filling both cores;
# at 1,024 and 512, 1.11x.
WORKER_CONCURRENCY = 1024
WORKER_BATCH = 512
