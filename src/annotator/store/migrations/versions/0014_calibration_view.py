"""Calibration items first on a walled store: a rater reads which of their own assigned items
are calibration items (the item references only, never a reference answer or reason)

On a walled PostgreSQL store (0013_rls) a rater's role reads a calibration item's row of
``quality_items`` only after submitting their own work on it (the reference answer is
feedback after submit), so their queue could not put the unsubmitted calibration items
first. ``annotator_my_calibration`` is a security-barrier view owned by the store's owner:
it shows the caller (``annotator_me()``, the invoking role) the ``kind`` and ``item_ref`` of
the calibration items on which they hold active rated work, and nothing else. SQLite stores
(never walled) are unchanged. See docs/security.md.

Revision ID: 0014_calibration_view
Revises: 0013_rls
"""

from __future__ import annotations

from annotator.store.migrations._ops import own_view

revision = "0014_calibration_view"
down_revision = "0013_rls"
branch_labels = None
depends_on = None

VIEW = "annotator_my_calibration"
# The view runs with its owner's rights on the tables (so past their row policies) but calls
# annotator_me() as the querying role; security_barrier keeps a caller's own conditions from
# running before the view's.
DEFINITION = (
    f"CREATE VIEW {VIEW} WITH (security_barrier) AS"
    " SELECT q.kind, q.item_ref FROM quality_items q"
    " WHERE q.purpose = 'calibration' AND EXISTS (SELECT 1 FROM rated_work w"
    " WHERE w.rater_id = (SELECT annotator_me()) AND w.withdrawn_at IS NULL"
    " AND w.kind = q.kind AND ("
    "(q.kind = 'case' AND w.case_pk IN (SELECT c.id FROM cases c WHERE c.case_id = q.item_ref))"
    " OR CAST(w.task_id AS text) = q.item_ref OR CAST(w.item_id AS text) = q.item_ref))"
)


upgrade, downgrade = own_view(VIEW, DEFINITION)
