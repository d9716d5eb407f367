"""Promoting hand-made manifests of one shop (registry.store.promotion.promote_site), and counting
the writes a promotion sends."""

from __future__ import annotations

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow
from registry.model.schemas import Action, FetchFailure, Flow, FlowStep, Manifest, RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash

HOST = "shop.example"
URL = f"https://{HOST}/.well-known/agent-actions.json"


def manifest(*names: str, flows: bool = False) -> Manifest:
    actions = [
        Action(
            name=n,
            title=n.replace("_", " "),
            effect="write",
            method="POST",
            endpoint=f"https://{HOST}/api/{n}",
        )
        for n in names
    ]
    flow_list = (
        [Flow(name="buy", title="Buy", effect="spend", steps=[FlowStep(action=n) for n in names])]
        if flows
        else []
    )
    return Manifest(
        site=HOST,
        url=URL,
        format="agent-actions",
        site_name="Shop",
        actions=actions,
        flows=flow_list,
    )


def update(m: Manifest, body: bytes | None = None, url: str = URL) -> SiteUpdate:
    body = body if body is not None else m.model_dump_json().encode()
    raw = RawDocument(url=url, body=body, content_type="application/json")
    return SiteUpdate(HOST, f"https://{HOST}", [NormalisedDocument(raw, m, content_hash(body))])


def failure(code: str, status: int | None = None) -> SiteUpdate:
    return SiteUpdate(
        HOST, f"https://{HOST}", failures=[FetchFailure(url=URL, status=status, code=code)]
    )


def names(session: Session) -> list[str]:
    return sorted(session.scalars(select(ActionRow.name)))


class WriteCounter:
    """Counts INSERT/UPDATE/DELETE statements sent on a session's connection."""

    def __init__(self, session: Session) -> None:
        self.writes: list[str] = []
        self.conn = session.connection()
        event.listen(self.conn, "before_cursor_execute", self._seen)

    def _seen(self, _conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            self.writes.append(statement)

    def close(self) -> None:
        event.remove(self.conn, "before_cursor_execute", self._seen)


class Statements:
    """Every statement sent on a session's connection, upper-cased on one line."""

    def __init__(self, session: Session) -> None:
        self.sent: list[str] = []
        self.conn = session.connection()
        event.listen(self.conn, "before_cursor_execute", self._seen)

    def _seen(self, _conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        self.sent.append(" ".join(statement.split()).upper())

    def close(self) -> None:
        event.remove(self.conn, "before_cursor_execute", self._seen)
