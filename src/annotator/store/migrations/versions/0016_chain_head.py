"""An edit's cost on a team store: the history chain's head advanced in one statement

``history_chain.prev_hash`` keeps the head's hash before its last advance, which PostgreSQL's
one-statement ``UPDATE ... RETURNING`` hands back (store/chain.py): an edit takes and
advances the head in one round trip instead of two. The row-level security policies are
0013's: a set-returning helper for an annotator's cases, tried on this branch, made the
edit's case reads slower, not faster (docs/performance.md).

Revision ID: 0016_chain_head
Revises: 0015_senior_reads
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_chain_head"
down_revision = "0015_senior_reads"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: the one-row table needs no batch copy on SQLite.
    op.add_column("history_chain", sa.Column("prev_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column("history_chain", "prev_hash")
