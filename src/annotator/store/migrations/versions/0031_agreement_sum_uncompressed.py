"""The agreement statistics are stored uncompressed on PostgreSQL (issue 27).

The sum row of ``agreement_stats`` holds every rater pair's tables (300 KB at the bench's
100,000 cases, 302 annotators) and is written after each submission the point estimates
take in. PostgreSQL compressed it on every write (pglz, TOAST): 13 ms a write against 8 ms
uncompressed, measured on this row. The per-case rows are far below the size TOAST
compresses, so only the sum row is affected. SQLite stores text as it is.

Revision ID: 0031_agreement_sum_uncompressed
Revises: 0030_my_case_work_lookup
"""

from __future__ import annotations

from alembic import op

revision = "0031_agreement_sum_uncompressed"
down_revision = "0030_my_case_work_lookup"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE agreement_stats ALTER COLUMN stats SET STORAGE EXTERNAL")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE agreement_stats ALTER COLUMN stats SET STORAGE EXTENDED")
