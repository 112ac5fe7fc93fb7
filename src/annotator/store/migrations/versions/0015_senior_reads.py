"""Adjudicators read submitted rated work but no longer change it (PostgreSQL)

0013_rls let an adjudicator's role UPDATE any rated work it could see, so with ``psql`` a
senior could rewrite the values or state of another rater's submitted labels, verdicts or
scores. No adjudicator action of the app writes rated work (they write decisions, review
records, reviewer letters, detected items, the case's state and history; sending work back
for a re-check is an import, a curator's): the UPDATE policy now gives a rater their own rows
and a curator all. SQLite has no row security: nothing changes there.

Revision ID: 0015_senior_reads
Revises: 0014_calibration_view
"""

from __future__ import annotations

from alembic import op

revision = "0015_senior_reads"
down_revision = "0014_calibration_view"
branch_labels = None
depends_on = None

# 0013_rls names each policy by its command and its place in the table's list.
POLICY = "annotator_update_2"
_ME = "(SELECT annotator_me())"
_CUR = "(SELECT annotator_is('curator'))"
_ADJ = "(SELECT annotator_is('adjudicator'))"
OWN_OR_CURATOR = f"rater_id = {_ME} OR {_CUR}"
# What 0013_rls gave (restored on downgrade).
OWN_OR_SENIOR = f"rater_id = {_ME} OR ({_CUR} OR {_ADJ})"


def _replace(rule: str) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
    app = '"' + f"{prefix}_app".replace('"', '""') + '"'
    bind.exec_driver_sql(f"DROP POLICY IF EXISTS {POLICY} ON rated_work")
    bind.exec_driver_sql(
        f"CREATE POLICY {POLICY} ON rated_work FOR UPDATE TO {app}"
        f" USING ({rule}) WITH CHECK ({rule})"
    )


def upgrade() -> None:
    _replace(OWN_OR_CURATOR)


def downgrade() -> None:
    _replace(OWN_OR_SENIOR)
