"""A rater's own case work for their list's mark, past the row policies (issue 27)

The case list is kept while its *mark* holds (services/workspace.py): one aggregate over the
rater's work rows and their cases. On a walled PostgreSQL store that aggregate ran each of
the rater's rows through the row policy on ``cases`` (an ``EXISTS`` per row): 2.5-3 ms of a
4-5 ms statement at 1,000 assigned cases, against the list's 10 ms. ``annotator_my_case_work``
is a security-barrier view owned by the store's owner, like ``annotator_my_calibration``
(0014): it shows the caller (``annotator_me()``, the invoking role) the versions and times
of their own active case work and of those cases, which they read anyway, and nothing of
anyone else's. SQLite stores are unchanged. See docs/security.md.

Revision ID: 0027_my_case_work
Revises: 0026_lean_store
"""

from __future__ import annotations

from annotator.store.migrations._ops import own_view

revision = "0027_my_case_work"
down_revision = "0026_lean_store"
branch_labels = None
depends_on = None

VIEW = "annotator_my_case_work"
DEFINITION = (
    f"CREATE VIEW {VIEW} WITH (security_barrier) AS"
    " SELECT w.version, w.updated_at, w.created_at, w.repeat_of, w.due_at,"
    " c.version AS case_version"
    " FROM rated_work w JOIN cases c ON c.id = w.case_pk"
    " WHERE w.rater_id = (SELECT annotator_me()) AND w.kind = 'case'"
    " AND w.withdrawn_at IS NULL"
)


upgrade, downgrade = own_view(VIEW, DEFINITION)
