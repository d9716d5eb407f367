"""actions.index_fields, index_text, payload, index_version

Why: a full index rebuild spent most of its time in Python working out each action's words
and result JSON; they depend only on the stored row, so they are worked out once when the
action is stored (registry.index.parts). Existing rows keep NULL and are worked out at build
time until their site is stored again.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = {
    "index_fields": sa.Text,
    "index_text": sa.Text,
    "payload": sa.Text,
    "index_version": sa.Integer,
}


def upgrade() -> None:
    for name, kind in COLUMNS.items():
        op.add_column("actions", sa.Column(name, kind(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
