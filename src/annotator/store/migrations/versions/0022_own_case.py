"""An annotator's own cases found by an index on a walled store (PostgreSQL, issue 27)

0013_rls lets an annotator read a case, its drafts and its images when they rate it: one
EXISTS over their rated work, ``w.case_pk = case OR w.item_id IN (the case's judged items)``.
The OR kept PostgreSQL from using the case's index: each row read checked the person's whole
rated work (1,000 cases: ~1,600 rows per case row, 0.5 s for the case list, the start of the
annotate page waited for it). The same rule as two EXISTS, the case's own rows and the judged
items' rows, each an index lookup. Who sees what does not change. SQLite has no row security:
nothing changes there.

Revision ID: 0022_own_case
Revises: 0021_queue_key
"""

from __future__ import annotations

from collections.abc import Callable

from alembic import op

revision = "0022_own_case"
down_revision = "0021_queue_key"
branch_labels = None
depends_on = None

_ME = "(SELECT annotator_me())"
_READER = "((SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator')))"


def _own_case(col: str) -> str:
    """A case assigned to the caller, or linked to a judged output they score."""
    return (f"(EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = {_ME} AND w.case_pk = {col})"
            " OR EXISTS (SELECT 1 FROM judge_items j JOIN rated_work w ON w.item_id = j.id"
            f" WHERE j.case_pk = {col} AND w.rater_id = {_ME}))")


def _own_case_0013(col: str) -> str:
    """The rule as 0013_rls wrote it (restored on downgrade)."""
    return (f"EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = {_ME} AND (w.case_pk ="
            f" {col} OR w.item_id IN (SELECT j.id FROM judge_items j WHERE j.case_pk = {col})))")


def _policies(own: Callable[[str], str]) -> list[tuple[str, str, str, str, str | None]]:
    """(table, policy, command, USING, WITH CHECK): 0013_rls's names, by command and place."""
    case = f"{_READER} OR " + own("cases.id")
    of_revision = ("EXISTS (SELECT 1 FROM case_revisions r WHERE r.id = case_images.revision_id"
                   " AND " + own("r.case_pk") + ")")
    return [
        ("cases", "annotator_select_0", "SELECT", case, None),
        ("cases", "annotator_update_2", "UPDATE", case, case),
        ("case_revisions", "annotator_select_0", "SELECT",
         f"{_READER} OR " + own("case_revisions.case_pk"), None),
        ("case_images", "annotator_select_0", "SELECT", f"{_READER} OR {of_revision}", None),
    ]


def _replace(own: Callable[[str], str]) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
    app = '"' + f"{prefix}_app".replace('"', '""') + '"'
    for table, name, command, using, check in _policies(own):
        bind.exec_driver_sql(f"DROP POLICY IF EXISTS {name} ON {table}")
        clause = f" USING ({using})" + (f" WITH CHECK ({check})" if check else "")
        bind.exec_driver_sql(f"CREATE POLICY {name} ON {table} FOR {command} TO {app}{clause}")


def upgrade() -> None:
    _replace(_own_case)


def downgrade() -> None:
    _replace(_own_case_0013)
