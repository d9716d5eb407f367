"""flows.auth, flows.scope, flows.cost: what running a flow needs and costs; documents.endpoints

Why: a flow said auth "unknown", no scope and no cost whatever its steps needed, so a flow
over an oauth2 step that costs 3.95 EUR looked free and open (issue 20, seed 002). They are
now worked out from the steps when a document is normalised (registry.model.flow_terms).
Existing rows get "unknown" and NULL until their documents are normalised again
(NORMALISER_VERSION 7). documents.endpoints: where a site's receipts, refunds, revocations
and negotiation live, as its agent-actions manifest says (seed 002's ``endpoints``).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "flows", sa.Column("auth", sa.String(10), nullable=False, server_default="unknown")
    )
    op.add_column("flows", sa.Column("scope", sa.String(200), nullable=True))
    op.add_column("flows", sa.Column("cost", JSON, nullable=True))
    op.add_column("documents", sa.Column("endpoints", JSON, nullable=True))


def downgrade() -> None:
    # Not batch mode: on SQLite it would copy the table (see 0012). SQLite >= 3.35 drops a
    # column in place.
    op.drop_column("documents", "endpoints")
    op.drop_column("flows", "cost")
    op.drop_column("flows", "scope")
    op.drop_column("flows", "auth")
