"""sites: an index in change order

Why: GET /sites lists sites by (when their action set last changed, else when they were first
stored; host), and mirrors follow it as a change feed page by page; without an index each
page sorted every site (190 ms a page at 200k sites on PostgreSQL), with it a page is an
index range scan. PostgreSQL only: SQLite, the embedded store, cannot reflect an expression
index (so no drift check could see it) and holds fewer sites.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.create_index(
        "ix_sites_change_order", "sites", [sa.text("coalesce(changed_at, created_at)"), "host"]
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.drop_index("ix_sites_change_order", table_name="sites")
