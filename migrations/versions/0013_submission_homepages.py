"""submissions.url: only the site's homepage

Why: a submission kept the URL exactly as submitted, query and fragment included
(``https://shop.example/admin/reset?token=...``), and a resubmission of the host answered
it to whoever asked next. New submissions store only ``scheme://host[:port]/`` (the crawl
starts there anyway); this trims the rows stored before, so no old secret stays behind. No
table changes. Going back keeps the trimmed URLs: what was dropped is meant to be gone.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def homepage(url: str) -> str:
    """``scheme://host[:port]/`` of a stored submission URL (the address guard let it in: an
    http(s) URL with a host and no user-info)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # cannot be split: keep nothing that could be a secret
        return url.split("?", 1)[0].split("#", 1)[0]
    return f"{parts.scheme.lower()}://{parts.netloc.rpartition('@')[2].lower()}/"


def upgrade() -> None:
    conn = op.get_bind()
    stored = conn.execute(sa.text("SELECT id, url FROM submissions")).all()
    changed = [{"id": ident, "url": homepage(url)} for ident, url in stored if homepage(url) != url]
    if changed:
        conn.execute(sa.text("UPDATE submissions SET url = :url WHERE id = :id"), changed)


def downgrade() -> None:
    pass  # the paths, queries and fragments are not kept anywhere: nothing to restore
