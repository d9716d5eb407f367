"""endpoint_liveness

Why: a listed endpoint is worth little if it does not answer. Liveness probes (crawler/probes,
read-only handshakes only) record per endpoint a site lists whether it is live, needs auth,
answers HTTP but not the protocol, or is unreachable, when and how fast; results, /sites and
MCP show it and /find?live=true filters by it. ``next_probe_at`` is the probes' own schedule.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "endpoint_liveness",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("endpoint", sa.String(length=2048), nullable=False),
        sa.Column("probe_url", sa.String(length=2048), nullable=False),
        sa.Column("protocol", sa.String(length=10), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("checked_at", sa.DateTime(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=True),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("detail", JSON, nullable=False),
        sa.Column("next_probe_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["site_id"],
            ["sites.id"],
            name=op.f("fk_endpoint_liveness_site_id_sites"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_endpoint_liveness")),
        sa.UniqueConstraint("site_id", "endpoint", name=op.f("uq_endpoint_liveness_site_id")),
    )
    op.create_index(
        op.f("ix_endpoint_liveness_site_id"), "endpoint_liveness", ["site_id"], unique=False
    )
    op.create_index(
        op.f("ix_endpoint_liveness_next_probe_at"),
        "endpoint_liveness",
        ["next_probe_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("endpoint_liveness")
