"""The liveness probes beside the crawls on PostgreSQL: `actiondex schedule` registers a
periodic ``actiondex.probe_due`` on the schedule queue, and it probes the endpoints whose next
probe is due (a live SDK server and a dead port here), storing what it found."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from actiondex.jobs.app import SCHEDULE_QUEUE, make_app
from actiondex.jobs.periodic import register_periodic
from actiondex.jobs.probing import probe_due_endpoints
from harness.mcp_web import ProbeWeb
from registry.config import Settings
from registry.db.engine import transaction
from registry.db.tables import EndpointLiveness
from registry.model.liveness import ProbeOutcome, ProbeTarget
from registry.store.liveness import record
from registry.store.rows import get_or_create_site, utcnow


def test_the_scheduler_probes_what_is_due(queue: tuple[Settings, Engine]) -> None:
    settings, engine = queue
    app = make_app(settings)
    register_periodic(app, settings)
    assert app.tasks["actiondex.probe_due"].queue == SCHEDULE_QUEUE

    web = ProbeWeb().start()
    try:
        hosts = ("live.mcp.test", "dead.mcp.test")
        with transaction(engine) as session:
            past = utcnow() - timedelta(days=2)
            for host in hosts:
                get_or_create_site(session, host, web.url(host).rstrip("/"), past)
            url = {h: web.url(h, "/mcp") for h in hosts}
            # Probed two days ago (the other way round): due again now.
            record(
                session,
                [
                    ProbeOutcome(ProbeTarget(h, url[h], url[h], "mcp", "handshake"), status, past)
                    for h, status in zip(hosts, ("unreachable", "live"), strict=True)
                ],
            )
        probing = settings.model_copy(update={"resolve": web.resolve_args(), "probe_timeout": 3})
        found = asyncio.run(probe_due_endpoints(engine, probing))
    finally:
        web.stop()
    assert found["statuses"] == {"live": 1, "unreachable": 1}
    assert found["tools"] == 3 and found["changed_sites"] == ["dead.mcp.test", "live.mcp.test"]
    with Session(engine) as session:
        rows = {r.endpoint: r for r in session.scalars(select(EndpointLiveness))}
    assert rows[url["live.mcp.test"]].status == "live"
    assert rows[url["dead.mcp.test"]].status == "unreachable"
    assert all(r.next_probe_at > utcnow() for r in rows.values())
