"""sites.host is the site key: ``host:port`` for a site off its scheme's default port (issue 20)

Why: two services on one host (kites.test:18110 and kites.test:18111) were merged into one site
keyed ``kites.test``, and ``/find?site=kites.test:18111`` found nothing. The key is now
registry.model.urls.site_key. A stored site whose origin has a non-default port is re-keyed
``host:port`` (``[v6]:port``), so its next crawl (which names it so) updates it instead of
starting a second site; its documents, actions, flows and history stay on the same row, and its
actions keep their ids (an id is opaque; a changed document gives the new ones). Open and past
submissions of such a homepage follow. No row is dropped; a key already taken (impossible
before this revision) leaves the row as it was. Going back strips the port again where that
key is free.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""

from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_DEFAULT = {"http": 80, "https": 443}


def _keyed(host: str, url: str) -> str:
    """``host`` with the port of ``url`` when that port is not its scheme's default."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return host
    if port is None or port == _DEFAULT.get(parts.scheme) or host.endswith(f":{port}"):
        return host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _rekey(table: str, column: str, pairs: list[tuple[object, str, str]], unique: bool) -> None:
    conn = op.get_bind()
    taken = {row[0] for row in conn.execute(sa.text(f"SELECT host FROM {table}"))}
    for ident, old, new in pairs:
        if new == old or (unique and new in taken):
            continue
        conn.execute(
            sa.text(f"UPDATE {table} SET host = :new WHERE {column} = :id"),
            {"new": new, "id": ident},
        )
        taken.add(new)


def upgrade() -> None:
    conn = op.get_bind()
    sites = conn.execute(sa.text("SELECT id, host, origin FROM sites")).all()
    _rekey("sites", "id", [(i, h, _keyed(h, o)) for i, h, o in sites], unique=True)
    subs = conn.execute(sa.text("SELECT id, host, url FROM submissions")).all()
    _rekey("submissions", "id", [(i, h, _keyed(h, u)) for i, h, u in subs], unique=False)


def _bare(host: str) -> str:
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    name, _, port = host.rpartition(":")
    return name if port.isdigit() and name and ":" not in name else host


def downgrade() -> None:
    conn = op.get_bind()
    sites = conn.execute(sa.text("SELECT id, host FROM sites")).all()
    _rekey("sites", "id", [(i, h, _bare(h)) for i, h in sites], unique=True)
    subs = conn.execute(sa.text("SELECT id, host FROM submissions")).all()
    _rekey("submissions", "id", [(i, h, _bare(h)) for i, h in subs], unique=False)
