"""actions.verified: whose endpoint it is, checked (issue 20, a site is its origin)

Why: an endpoint on another host than the site's was hidden from default results, and no
field said whether it belonged to the site's owner. ``verified`` says so: true on the site's
own host or a subdomain (``same_origin``), on another host of the same registrable domain
(the Public Suffix List bundled in publicsuffixlist), or where the endpoint's host publishes
a document naming the site (registry.store.reciprocal, from the next crawl on). This carries
today's rows over by the first two rules. Going back drops the column.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import op
from publicsuffixlist import PublicSuffixList

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return ""


def upgrade() -> None:
    op.add_column(
        "actions", sa.Column("verified", sa.Boolean(), nullable=False, server_default=sa.true())
    )
    conn = op.get_bind()
    cross = conn.execute(
        sa.text(
            "SELECT a.id, a.endpoint, s.host FROM actions a JOIN sites s ON s.id = a.site_id"
            " WHERE a.same_origin = :no"
        ),
        {"no": False},
    ).all()
    if not cross:
        return
    suffixes = PublicSuffixList()
    owned = set()
    for ident, endpoint, host in cross:
        mine = suffixes.privatesuffix(host.split(":")[0]) if host else None
        if endpoint and mine is not None and suffixes.privatesuffix(_host(endpoint)) == mine:
            owned.add(ident)
    unverified = [{"id": ident, "no": False} for ident, _, _ in cross if ident not in owned]
    if unverified:
        conn.execute(sa.text("UPDATE actions SET verified = :no WHERE id = :id"), unverified)
    # The stored result payloads say nothing of it yet: INDEX_VERSION moved, so every build
    # works them out again (registry.index.parts) until the rows are stored again.


def downgrade() -> None:
    # Not batch mode (see 0012): SQLite >= 3.35 drops a column in place.
    op.drop_column("actions", "verified")
