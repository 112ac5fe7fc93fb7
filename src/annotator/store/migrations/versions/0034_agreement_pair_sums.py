"""The rater pairs' summed tables of the agreement statistics get a table of their own
(issue 27).

The sum row of ``agreement_stats`` held every rater pair's confusion tables (300 KB at the
bench's 100,000 cases, 300 annotators), so each submission the point estimates take in
rewrote all of them: the point estimates grew with the raters. ``agreement_pair_sums`` holds
one row per family and pair; a submission rewrites the few pairs of its case. The stored
statistics are derived data: they are dropped here and recomputed, as a change of their
code does anyway. On a walled PostgreSQL store: curators only, as ``agreement_stats``.

Revision ID: 0034_agreement_pair_sums
Revises: 0033_sme_totals
"""

from __future__ import annotations

from alembic import op

from annotator.store.migrations._ops import CURATORS_ONLY, row_policies, table

revision = "0034_agreement_pair_sums"
down_revision = "0033_sme_totals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table("agreement_pair_sums", "family s64, pair s200, counts json", pk="family pair")
    bind = op.get_bind()
    # The sum row with the pairs inside goes: the next call restarts and fills both tables.
    bind.exec_driver_sql("DELETE FROM agreement_stats")
    if bind.dialect.name == "postgresql":  # as 0031: small rows, never worth compressing
        bind.exec_driver_sql("ALTER TABLE agreement_pair_sums ALTER COLUMN counts SET STORAGE"
                             " EXTERNAL")
    row_policies("agreement_pair_sums", "SELECT, INSERT, UPDATE, DELETE", CURATORS_ONLY)


def downgrade() -> None:
    op.drop_table("agreement_pair_sums")
    op.get_bind().exec_driver_sql("DELETE FROM agreement_stats")
