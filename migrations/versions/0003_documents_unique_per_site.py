"""documents unique per site

Why: a document's URL is unique within a site, not across sites: two sites may both read the
same cross-host OpenAPI (an ai-plugin's api.url), and each keeps its own copy and actions.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.drop_constraint("uq_documents_url", type_="unique")
        batch.create_unique_constraint("uq_documents_site_id", ["site_id", "url"])


def downgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.drop_constraint("uq_documents_site_id", type_="unique")
        batch.create_unique_constraint("uq_documents_url", ["url"])
