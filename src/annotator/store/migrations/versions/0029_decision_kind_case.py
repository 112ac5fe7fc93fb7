"""Indexes the planner cannot take for a scan of every case's rows (issue 27).

Without table statistics SQLite's planner chose, for reads that name a few cases:

- ``ix_decisions_kind_superseded`` (two equalities) over ``ix_decisions_case_pk`` for the review
  queue's page of standing case decisions (``case_pk IN (...) AND superseded AND kind``): every
  standing case decision read, 21 ms at the bench's 100,000 cases against 0.3 ms at 1,000. With
  the case last, one index answers that read (a seek per case) and the judge's count by kind.
- ``ix_rated_work_repeat_of_kind`` for ``repeat_of IS NULL`` (every first rating) over the
  case's unique index when the agreement read a few marked cases' ratings: 150 ms at 100,000
  cases per batch. Every read by ``repeat_of`` asks for repeats (``=``, ``IN``, ``IS NOT
  NULL``), so the index now holds the repeats only.

Revision ID: 0029_decision_kind_case
Revises: 0028_decision_kind
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029_decision_kind_case"
down_revision = "0028_decision_kind"
branch_labels = None
depends_on = None

_REPEATS = sa.text("repeat_of IS NOT NULL")


def upgrade() -> None:
    op.drop_index("ix_decisions_kind_superseded", table_name="decisions")
    op.create_index("ix_decisions_kind_superseded_case", "decisions",
                    ["kind", "superseded", "case_pk"])
    op.drop_index("ix_rated_work_repeat_of_kind", table_name="rated_work")
    op.create_index("ix_rated_work_repeats", "rated_work", ["repeat_of", "kind"],
                    sqlite_where=_REPEATS, postgresql_where=_REPEATS)


def downgrade() -> None:
    op.drop_index("ix_rated_work_repeats", table_name="rated_work")
    op.create_index("ix_rated_work_repeat_of_kind", "rated_work", ["repeat_of", "kind"])
    op.drop_index("ix_decisions_kind_superseded_case", table_name="decisions")
    op.create_index("ix_decisions_kind_superseded", "decisions", ["kind", "superseded"])
