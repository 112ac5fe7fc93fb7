"""Agreement statistics marked stale by the writers (issue 27): every write that changes what
a case's statistics are computed from marks the case in ``agreement_stale``, in its own
transaction, so the point estimates read the stored sum and the marked cases, not every case.

The backfill marks every case and every stored row: the rows of 0019 were kept by keys that
no writer marked, so none of them is known to be current.

On PostgreSQL the app roles mark only through ``annotator_agreement_stale`` (SECURITY
DEFINER, as ``annotator_count_add``): an annotator's edit marks its case without reading or
writing the table. Seniors read the marks; curators, who recompute the statistics, clear
them.

Revision ID: 0020_agreement_stale
Revises: 0019_agreement_stats
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from alembic import op

from annotator.store.migrations._ops import table

revision = "0020_agreement_stale"
down_revision = "0019_agreement_stats"
branch_labels = None
depends_on = None

_DEFINER = "SECURITY DEFINER SET search_path = public, pg_temp"
# Marks ids[] (sorted by the app: no deadlock between writers) with this commit's token.
_MARK = (
    "CREATE FUNCTION annotator_agreement_stale(ids uuid[], mark uuid) RETURNS void"
    f" LANGUAGE sql VOLATILE {_DEFINER} AS $$"
    " INSERT INTO agreement_stale (case_pk, token) SELECT unnest(ids), mark"
    " ON CONFLICT (case_pk) DO UPDATE SET token = EXCLUDED.token $$"
)
_SENIOR = "(SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator'))"
_CUR = "(SELECT annotator_is('curator'))"
_CHUNK = 5_000


def upgrade() -> None:
    table("agreement_stale", "case_pk uuid, token uuid", pk="case_pk")
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql(_MARK)
        walled = bind.exec_driver_sql(
            "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first()
        if walled is not None:
            prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
            app = '"' + f"{prefix}_app".replace('"', '""') + '"'
            for statement in (
                f"GRANT SELECT, DELETE ON agreement_stale TO {app}",
                "ALTER TABLE agreement_stale ENABLE ROW LEVEL SECURITY",
                f"CREATE POLICY annotator_select_0 ON agreement_stale FOR SELECT TO {app}"
                f" USING ({_SENIOR})",
                f"CREATE POLICY annotator_delete_1 ON agreement_stale FOR DELETE TO {app}"
                f" USING ({_CUR})",
                "REVOKE EXECUTE ON FUNCTION annotator_agreement_stale(uuid[], uuid) FROM PUBLIC",
                f"GRANT EXECUTE ON FUNCTION annotator_agreement_stale(uuid[], uuid) TO {app}",
            ):
                bind.exec_driver_sql(statement)
    # Every case and every stored row, as frozen SQL (no application code).
    stale = sa.table("agreement_stale", sa.column("case_pk", sa.Uuid()),
                     sa.column("token", sa.Uuid()))
    cases = sa.table("cases", sa.column("id", sa.Uuid()))
    stats = sa.table("agreement_stats", sa.column("case_pk", sa.Uuid()))
    found = set(bind.execute(sa.select(cases.c.id)).scalars())
    reserved = (uuid.UUID(int=0), uuid.UUID(int=1))  # the rows of the sum and of the inputs
    found |= set(bind.execute(sa.select(stats.c.case_pk).where(
        stats.c.case_pk.not_in(reserved))).scalars())
    token = uuid.uuid4()
    rows = [{"case_pk": pk, "token": token} for pk in sorted(found)]
    for start in range(0, len(rows), _CHUNK):
        bind.execute(sa.insert(stale), rows[start:start + _CHUNK])


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql("DROP FUNCTION IF EXISTS annotator_agreement_stale(uuid[], uuid)")
    op.drop_table("agreement_stale")
