"""recrawl schedule on sites, a lifecycle for crawl runs

Why: `actiondex crawl --due` and the distributed scheduler need to know which sites are due
without reading every site (sites.next_crawl_at, indexed) and how the next interval adapts
(crawl_interval, crawl_failures, last_crawled_at). A crawl that dies must not stay `running`
forever: crawl_runs.heartbeat_at and owner ("hostname:pid") let a sweep mark it aborted.

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sites", sa.Column("next_crawl_at", sa.DateTime(), nullable=True))
    op.add_column("sites", sa.Column("crawl_interval", sa.Integer(), nullable=True))
    op.add_column(
        "sites", sa.Column("crawl_failures", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("sites", sa.Column("last_crawled_at", sa.DateTime(), nullable=True))
    # Sites stored before the schedule existed are due at once, the longest unchanged first.
    op.execute("UPDATE sites SET next_crawl_at = COALESCE(changed_at, created_at)")
    op.create_index("ix_sites_next_crawl_at", "sites", ["next_crawl_at"])
    op.add_column("crawl_runs", sa.Column("heartbeat_at", sa.DateTime(), nullable=True))
    op.add_column("crawl_runs", sa.Column("owner", sa.String(length=300), nullable=True))
    op.create_index("ix_crawl_runs_status", "crawl_runs", ["status"])


def downgrade() -> None:
    # Not batch mode: on SQLite it copies the table and drops the old one, and dropping sites
    # deletes every document and action through their ON DELETE CASCADE (crawl_runs: every
    # history entry's run id). SQLite >= 3.35 drops a column in place.
    op.drop_index("ix_crawl_runs_status", table_name="crawl_runs")
    for column in ("owner", "heartbeat_at"):
        op.drop_column("crawl_runs", column)
    op.drop_index("ix_sites_next_crawl_at", table_name="sites")
    for column in ("last_crawled_at", "crawl_failures", "crawl_interval", "next_crawl_at"):
        op.drop_column("sites", column)
