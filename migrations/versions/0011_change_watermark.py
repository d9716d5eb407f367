"""sites.change_seq and store_clock: a change watermark in commit order

Why: every API replica follows the store; reading every site's (host, version) on each poll
costs a full scan of sites (millions of rows). Each change now takes the next number of a
one-row counter (store_clock.seq) as the last statement before its commit, and the replica
reads only sites whose change_seq is above the highest number it has indexed: one range scan
of ix_sites_change_seq. Existing sites are numbered by id, so an old index catches up once.

Revision ID: 0011
Revises: 0007
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sites", sa.Column("change_seq", sa.BigInteger(), nullable=True))
    op.execute("UPDATE sites SET change_seq = id")
    op.create_index("ix_sites_change_seq", "sites", ["change_seq"])
    op.create_table(
        "store_clock",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_clock")),
    )
    op.execute("INSERT INTO store_clock (id, seq) SELECT 1, coalesce(max(id), 0) FROM sites")


def downgrade() -> None:
    op.drop_table("store_clock")
    op.drop_index("ix_sites_change_seq", table_name="sites")
    # Not batch mode: on SQLite it would copy sites and drop the old table, and dropping it
    # deletes every document and action through their ON DELETE CASCADE. SQLite >= 3.35 drops
    # a column in place.
    op.drop_column("sites", "change_seq")
