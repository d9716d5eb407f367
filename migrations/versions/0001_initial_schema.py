"""initial schema

Why: the foundation's tables: sites, the documents fetched from them (raw kept), the
actions and flows normalised from those documents, and a record of every crawl run.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# JSONB on PostgreSQL (indexable, compact), plain JSON text on SQLite.
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "crawl_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("targets", JSON, nullable=False),
        sa.Column("stats", JSON, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crawl_runs")),
    )
    op.create_table(
        "sites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("origin", sa.String(length=300), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("changed_at", sa.DateTime(), nullable=True),
        sa.Column("last_error_at", sa.DateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sites")),
        sa.UniqueConstraint("host", name=op.f("uq_sites_host")),
    )
    op.create_table(
        "documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("format", sa.String(length=64), nullable=True),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=True),
        sa.Column("raw", sa.LargeBinary(), nullable=True),
        sa.Column("content_type", sa.String(length=200), nullable=True),
        sa.Column("etag", sa.String(length=500), nullable=True),
        sa.Column("last_modified", sa.String(length=100), nullable=True),
        sa.Column("fetched_at", sa.DateTime(), nullable=False),
        sa.Column("normaliser_version", sa.Integer(), nullable=False),
        sa.Column("diagnostics", JSON, nullable=False),
        sa.Column("missing_count", sa.Integer(), nullable=False),
        sa.Column("missing_since", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["site_id"], ["sites.id"], name=op.f("fk_documents_site_id_sites"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_documents")),
        sa.UniqueConstraint("url", name=op.f("uq_documents_url")),
    )
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_documents_site_id"), ["site_id"], unique=False)

    op.create_table(
        "actions",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("title", sa.String(length=320), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=100), nullable=True),
        sa.Column("effect", sa.String(length=10), nullable=False),
        sa.Column("method", sa.String(length=10), nullable=True),
        sa.Column("endpoint", sa.String(length=2048), nullable=True),
        sa.Column("input_schema", JSON, nullable=False),
        sa.Column("output_schema", JSON, nullable=True),
        sa.Column("scope", sa.String(length=200), nullable=True),
        sa.Column("auth", sa.String(length=10), nullable=False),
        sa.Column("cost", JSON, nullable=True),
        sa.Column("same_origin", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["documents.id"],
            name=op.f("fk_actions_document_id_documents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["site_id"], ["sites.id"], name=op.f("fk_actions_site_id_sites"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_actions")),
    )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_actions_document_id"), ["document_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_actions_site_id"), ["site_id"], unique=False)
        batch_op.create_index("ix_actions_site_name", ["site_id", "name"], unique=False)

    op.create_table(
        "flows",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("title", sa.String(length=320), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("effect", sa.String(length=10), nullable=False),
        sa.Column("input_schema", JSON, nullable=False),
        sa.Column("steps", JSON, nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["documents.id"],
            name=op.f("fk_flows_document_id_documents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["site_id"], ["sites.id"], name=op.f("fk_flows_site_id_sites"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flows")),
    )
    with op.batch_alter_table("flows", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_flows_document_id"), ["document_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_flows_site_id"), ["site_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("flows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_flows_site_id"))
        batch_op.drop_index(batch_op.f("ix_flows_document_id"))

    op.drop_table("flows")
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_index("ix_actions_site_name")
        batch_op.drop_index(batch_op.f("ix_actions_site_id"))
        batch_op.drop_index(batch_op.f("ix_actions_document_id"))

    op.drop_table("actions")
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_documents_site_id"))

    op.drop_table("documents")
    op.drop_table("sites")
    op.drop_table("crawl_runs")
