"""Agreement statistics per case (issue 27): the per-case sufficient statistics of every label
family and their sum, so the point estimates after one more submission recompute one case

On a walled PostgreSQL store (0013_rls) the table has row-level security: curators only (the
agreement figures are theirs; per-case pair tables would show annotators each other's labels).

Revision ID: 0019_agreement_stats
Revises: 0018_counts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_agreement_stats"
down_revision = "0018_counts"
branch_labels = None
depends_on = None

_CUR = "(SELECT annotator_is('curator'))"
POLICIES = [("SELECT", _CUR, None), ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR),
            ("DELETE", _CUR, None)]


def upgrade() -> None:
    op.create_table(
        "agreement_stats",
        sa.Column("case_pk", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("case_pk", name=op.f("pk_agreement_stats")),
    )
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    walled = bind.exec_driver_sql(
        "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first()
    if walled is None:
        return
    prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
    app = '"' + f"{prefix}_app".replace('"', '""') + '"'
    bind.exec_driver_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON agreement_stats TO {app}")
    bind.exec_driver_sql("ALTER TABLE agreement_stats ENABLE ROW LEVEL SECURITY")
    for n, (cmd, using, check) in enumerate(POLICIES):
        clause = f" USING ({using})" if using else ""
        clause += f" WITH CHECK ({check})" if check else ""
        bind.exec_driver_sql(f"CREATE POLICY annotator_{cmd.lower()}_{n} ON agreement_stats"
                             f" FOR {cmd} TO {app}{clause}")


def downgrade() -> None:
    op.drop_table("agreement_stats")
