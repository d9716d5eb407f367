"""actions.about and sites.about: the publisher's whole text, for the index only

Why: the index read only what results show, so an ai-plugin's description_for_model was cut
to 320 characters before it was indexed, and the words that say what a plugin is for were
often never indexed. The whole text (sanitised, up to a few thousand characters) is kept
beside the display text, which keeps its cap. Existing rows get NULL: the index reads their
description as before until their documents are normalised again (NORMALISER_VERSION).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("about", sa.Text(), nullable=True))
    op.add_column("sites", sa.Column("about", sa.Text(), nullable=True))


def downgrade() -> None:
    # Not batch mode: on SQLite it would copy sites and drop the old table, and dropping it
    # deletes every document and action through their ON DELETE CASCADE. SQLite >= 3.35 drops
    # a column in place.
    op.drop_column("sites", "about")
    op.drop_column("actions", "about")
