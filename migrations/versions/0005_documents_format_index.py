"""index documents.format

Why: the ARD Registry API asks, once per request, which sites publish an ARD catalog (their
actions are answered with the publishers' entries, registry/ard/service.py Sites). Without an
index that is a scan of every document: 7 ms at 5,000 documents, most of a search's time, and
ten times that at a million actions; with it, a lookup of the few ARD rows.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_documents_format", "documents", ["format"])


def downgrade() -> None:
    op.drop_index("ix_documents_format", table_name="documents")
