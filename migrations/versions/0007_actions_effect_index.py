"""index actions.effect

Why: GET /stats counts actions by effect, and ARD's Explore facets over it. Without an index
the GROUP BY reads every action row (they are wide: payload and index text), 830 ms at 1M
actions on SQLite; with it SQLite and PostgreSQL count from the index alone.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_actions_effect", "actions", ["effect"])


def downgrade() -> None:
    op.drop_index("ix_actions_effect", table_name="actions")
