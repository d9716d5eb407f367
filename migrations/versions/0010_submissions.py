"""submissions

Why: POST /submissions and `actiondex submit` ask for a crawl of a host. The queue, each
request's state (queued, crawling, done with its actions, failed with its reason) and the
rate limits per client and per registrable domain live in the database, so they hold across
API replicas and crawl workers. A partial unique index keeps one open submission per host.

Revision ID: 0010
Revises: 0009 (merged with h-sched; 0007 on its own)
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
OPEN = sa.text("status IN ('queued', 'crawling')")

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("domain", sa.String(length=255), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("errors", JSON, nullable=False),
        sa.Column("actions", JSON, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
    )
    op.create_index(
        "uq_submissions_open_host",
        "submissions",
        ["host"],
        unique=True,
        sqlite_where=OPEN,
        postgresql_where=OPEN,
    )
    op.create_index("ix_submissions_status_created", "submissions", ["status", "created_at"])
    op.create_index("ix_submissions_client_created", "submissions", ["client", "created_at"])
    op.create_index("ix_submissions_domain_created", "submissions", ["domain", "created_at"])


def downgrade() -> None:
    op.drop_table("submissions")
