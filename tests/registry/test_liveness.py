"""Liveness in the store and the index: what the probes found is recorded per endpoint, the
endpoints a site no longer lists are forgotten, a change renumbers the site so the index reads
it again, results carry ``liveness``, ``live=true`` keeps the live, and an unreachable
endpoint ranks below a live one that says the same."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import EndpointLiveness, Site
from registry.index import ActionIndex
from registry.model.liveness import ProbeOutcome, ProbeTarget
from registry.search import FindQuery, find
from registry.search.sites import CANDIDATES
from registry.store.liveness import due_targets, probe_targets, record
from registry.store.rows import utcnow
from tests.helpers.stores import add_site

UP, DOWN = "up.example", "down.example"


def _sites(session: Session, hosts: tuple[str, ...] | list[str] = (UP, DOWN)) -> None:
    for host in hosts:
        add_site(
            session,
            host,
            [
                {
                    "name": "plan_trip",
                    "title": "Plan a trip",
                    "description": "Plans a trip by train across the country",
                    "endpoint": f"https://{host}/a2a",
                }
            ],
        )


def _outcome(host: str, status: str, **kw: object) -> ProbeOutcome:
    target = ProbeTarget(host, f"https://{host}/a2a", f"https://{host}/card.json", "a2a", "card")
    return ProbeOutcome(target, status, utcnow(), latency_ms=12, **kw)  # type: ignore[arg-type]


def test_outcomes_are_recorded_shown_filtered_and_ranked(session: Session, tmp_path: Path) -> None:
    _sites(session)
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    before = {s.host: s.change_seq for s in session.scalars(select(Site))}
    changed = record(session, [_outcome(UP, "live"), _outcome(DOWN, "unreachable")])
    assert changed == [DOWN, UP]
    after = {s.host: s.change_seq for s in session.scalars(select(Site))}
    assert all(after[h] > (before[h] or 0) for h in (UP, DOWN))  # the index reads them again
    index.sync(session)

    found = find(index, FindQuery(q="plan a trip by train", origin="any")).results
    assert [r.site for r in found] == [UP, DOWN]  # the same text: the one that answers first
    assert found[0].liveness is not None and found[0].liveness.status == "live"
    assert found[1].liveness is not None and found[1].liveness.status == "unreachable"
    live = find(index, FindQuery(q="plan a trip by train", origin="any", live=True)).results
    assert [r.site for r in live] == [UP]

    # The same verdict again renumbers nothing; an endpoint no longer listed is forgotten.
    assert record(session, [_outcome(UP, "live")]) == []
    assert record(session, [], complete=[DOWN]) == [DOWN]
    hosts = set(session.scalars(select(EndpointLiveness.endpoint)))
    assert hosts == {f"https://{UP}/a2a"}


def test_an_unreachable_endpoint_ranks_below_live_ones_beyond_the_first_candidates(
    session: Session, tmp_path: Path
) -> None:
    """More candidates than the site-support window (registry.search.sites.CANDIDATES), all
    saying the same: the unreachable ones are last wherever BM25 put them, and the ones past the
    window are not placed below it."""
    hosts = [f"agent-{i:02}.example" for i in range(CANDIDATES + 5)]
    _sites(session, hosts)
    outcomes = [_outcome(h, "live") for h in hosts]
    for down in (hosts[0], hosts[-1]):  # first and last by address: in and past the window
        outcomes[hosts.index(down)] = _outcome(down, "unreachable")
    record(session, outcomes)
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    query = FindQuery(q="plan a trip by train", origin="any", limit=len(hosts))
    found = find(index, query).results
    assert len(found) == len(hosts)
    statuses = [r.liveness.status for r in found if r.liveness is not None]
    assert statuses == ["live"] * (len(hosts) - 2) + ["unreachable"] * 2
    scores = [r.score for r in found]
    assert scores == sorted(scores, reverse=True)


def test_the_next_probe_follows_the_verdict_and_the_servers_hint(session: Session) -> None:
    _sites(session)
    now = utcnow()
    hinted = _outcome(UP, "live", ttl=timedelta(minutes=30))
    record(session, [hinted, _outcome(DOWN, "unreachable")])
    rows = {r.endpoint: r for r in session.scalars(select(EndpointLiveness))}
    assert rows[f"https://{UP}/a2a"].next_probe_at - hinted.checked_at == timedelta(minutes=30)
    assert rows[f"https://{DOWN}/a2a"].next_probe_at - now < timedelta(hours=1, seconds=5)
    due = due_targets(session, now + timedelta(hours=2), 10)
    assert {t.host for t in due} == {UP, DOWN}
    assert due_targets(session, now, 10) == []


def test_plain_http_actions_are_never_probe_targets(session: Session) -> None:
    _sites(session)  # agent-actions: plain HTTP actions
    assert probe_targets(session, [UP, DOWN]) == []
