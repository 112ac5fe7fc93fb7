"""The review queue's key per case, kept by the writes (issue 27): the first page is a range
read of an index, not a ranking of every case in review. Backfilled from the rows as they
stand (a case whose detection is stale is marked stale, for the queue's next read to
recompute). On PostgreSQL the function ``annotator_queue_stale`` lets any app role mark a
case's key stale; on a walled store (0013_rls) only seniors (curators, adjudicators) read or
write the keys themselves. See store/queue_keys.py.

Revision ID: 0021_queue_key
Revises: 0020_agreement_stale
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_queue_key"
down_revision = "0020_agreement_stale"
branch_labels = None
depends_on = None

_DEFINER = "SECURITY DEFINER SET search_path = public, pg_temp"
# Marks the keys of the given cases stale: an annotator's write on a walled store cannot read
# the other labels a key is computed from. SECURITY DEFINER: app roles that are no seniors
# hold no grant on the table. A reviewed case without a key gets one (group 9, never shown).
_STALE = (
    "CREATE FUNCTION annotator_queue_stale(ids uuid[]) RETURNS void"
    f" LANGUAGE sql VOLATILE {_DEFINER} AS $$"
    " UPDATE queue_keys SET stale = true WHERE case_pk = ANY(ids);"
    " INSERT INTO queue_keys (case_pk, case_id, grp, impact, open_conflicts, stale)"
    "  SELECT id, case_id, 9, 0, 0, true FROM cases"
    "  WHERE id = ANY(ids) AND state <> 'annotating'"
    "  ON CONFLICT (case_pk) DO NOTHING $$"
)
_SENIOR = "((SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator')))"
POLICIES = [("SELECT", _SENIOR, None), ("INSERT", None, _SENIOR), ("UPDATE", _SENIOR, _SENIOR),
            ("DELETE", _SENIOR, None)]


def upgrade() -> None:
    op.create_table(
        "queue_keys",
        sa.Column("case_pk", sa.Uuid(), nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("grp", sa.Integer(), nullable=False),
        sa.Column("impact", sa.Integer(), nullable=False),
        sa.Column("open_conflicts", sa.Integer(), nullable=False),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["case_pk"], ["cases.id"], ondelete="CASCADE",
                                name=op.f("fk_queue_keys_case_pk_cases")),
        sa.PrimaryKeyConstraint("case_pk", name=op.f("pk_queue_keys")),
    )
    op.create_index("ix_queue_keys_order", "queue_keys",
                    ["stale", "grp", "impact", "case_id", "open_conflicts"])
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql(_STALE)
        bind.exec_driver_sql("REVOKE EXECUTE ON FUNCTION annotator_queue_stale(uuid[])"
                             " FROM PUBLIC")
        walled = bind.exec_driver_sql(
            "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first()
        if walled is not None:
            prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
            app = '"' + f"{prefix}_app".replace('"', '""') + '"'
            bind.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION annotator_queue_stale(uuid[])"
                                 f" TO {app}")
            bind.exec_driver_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON queue_keys TO {app}")
            bind.exec_driver_sql("ALTER TABLE queue_keys ENABLE ROW LEVEL SECURITY")
            for n, (cmd, using, check) in enumerate(POLICIES):
                clause = f" USING ({using})" if using else ""
                clause += f" WITH CHECK ({check})" if check else ""
                bind.exec_driver_sql(f"CREATE POLICY annotator_{cmd.lower()}_{n} ON queue_keys"
                                     f" FOR {cmd} TO {app}{clause}")
    # The keys as the rows stand, computed by the app's own rules (as 0018 recounts).
    from annotator.services.review.queue import backfill_keys

    backfill_keys(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql("DROP FUNCTION IF EXISTS annotator_queue_stale(uuid[])")
    op.drop_index("ix_queue_keys_order", table_name="queue_keys")
    op.drop_table("queue_keys")
