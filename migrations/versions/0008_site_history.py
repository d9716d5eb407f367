"""site_history and sites.removed_at

Why: every change of a site's action set is kept as a version with its diff (added, removed,
changed fields), with why it happened (a crawl, an ingest, a tombstone, robots.txt, an
operator's removal), so an agent or an operator can see what a site offered before; and a site
an operator removes keeps its row and history (removed_at) instead of vanishing.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sites", sa.Column("removed_at", sa.DateTime(), nullable=True))
    op.create_table(
        "site_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("reason", sa.String(length=20), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("added", JSON, nullable=False),
        sa.Column("removed", JSON, nullable=False),
        sa.Column("changed", JSON, nullable=False),
        sa.Column("actions", sa.Integer(), nullable=False),
        sa.Column("flows", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["crawl_runs.id"],
            name=op.f("fk_site_history_run_id_crawl_runs"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["site_id"],
            ["sites.id"],
            name=op.f("fk_site_history_site_id_sites"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_site_history")),
    )
    # A site's history, newest first, one page at a time: one range of this index.
    op.create_index("ix_site_history_site_id_id", "site_history", ["site_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_site_history_site_id_id", table_name="site_history")
    op.drop_table("site_history")
    op.drop_column("sites", "removed_at")
