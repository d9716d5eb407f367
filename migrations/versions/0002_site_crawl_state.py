"""sites.crawl_state

Why: RFC 9309 asks crawlers to cache robots.txt (24 h here); keeping it, the catch-all probe
and recent 404 paths per site lets an unchanged recrawl skip most requests.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sites", sa.Column("crawl_state", JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("sites", "crawl_state")
