"""The review queue's totals per group, kept by triggers on ``queue_keys`` (issue 27).

The queue's heading and the desk counted every fresh key by group (100,000 bench cases:
60,000 keys, 10 ms of the desk's 35 ms). ``queue_totals`` holds one row per group, and the
database keeps it: a trigger adds each fresh key inserted, takes away each one deleted or
marked stale, and moves it when its group or open conflicts change, so every writer is
counted (the app's sessions, ``annotator_queue_stale``, the bench's clone, a repair).
Backfilled from the keys as they stand.

On PostgreSQL the trigger function is ``SECURITY DEFINER`` (an annotator marking a key stale
through ``annotator_queue_stale`` holds no grant on the totals), seniors read the totals as
they read the keys (0013_rls), and ``annotator_queue_recount`` lets ``repair`` count them
again. Each writer of keys takes the history chain's head lock first
(``store.queue_keys``), so two writers never wait on each other's totals rows in opposite
orders.

Revision ID: 0032_queue_totals
Revises: 0031_agreement_sum_uncompressed
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from annotator.store.migrations._ops import install_totals, remove_totals

revision = "0032_queue_totals"
down_revision = "0031_agreement_sum_uncompressed"
branch_labels = None
depends_on = None

RECOUNT = ("INSERT INTO queue_totals (grp, cases, open_conflicts)"
           " SELECT grp, count(*), coalesce(sum(open_conflicts), 0) FROM queue_keys"
           " WHERE NOT stale GROUP BY grp")
_ADD = ("INSERT INTO queue_totals (grp, cases, open_conflicts) {rows}"
        " ON CONFLICT (grp) DO UPDATE SET cases = queue_totals.cases + 1,"
        " open_conflicts = queue_totals.open_conflicts + excluded.open_conflicts")
_TAKE = ("UPDATE queue_totals SET cases = cases - 1,"
         " open_conflicts = open_conflicts - OLD.open_conflicts WHERE grp = OLD.grp")
_MOVED = ("OLD.grp IS NOT NEW.grp OR OLD.open_conflicts IS NOT NEW.open_conflicts"
          " OR OLD.stale IS NOT NEW.stale")
SQLITE_TRIGGERS = {
    "queue_totals_insert": (
        "CREATE TRIGGER queue_totals_insert AFTER INSERT ON queue_keys WHEN NOT NEW.stale"
        f" BEGIN {_ADD.format(rows='VALUES (NEW.grp, 1, NEW.open_conflicts)')}; END"),
    "queue_totals_delete": (
        f"CREATE TRIGGER queue_totals_delete AFTER DELETE ON queue_keys WHEN NOT OLD.stale"
        f" BEGIN {_TAKE}; END"),
    "queue_totals_update": (
        "CREATE TRIGGER queue_totals_update AFTER UPDATE OF grp, open_conflicts, stale"
        f" ON queue_keys WHEN {_MOVED} BEGIN {_TAKE} AND NOT OLD.stale;"
        # INSERT ... SELECT with an upsert needs its WHERE (SQLite's parser), which it has.
        f" {_ADD.format(rows='SELECT NEW.grp, 1, NEW.open_conflicts WHERE NOT NEW.stale')};"
        " END"),
}
_DEFINER = "SECURITY DEFINER SET search_path = public, pg_temp"
PG_FUNCTION = (
    f"CREATE FUNCTION annotator_queue_totals() RETURNS trigger LANGUAGE plpgsql {_DEFINER}"
    " AS $$ BEGIN"
    " IF TG_OP <> 'INSERT' THEN IF NOT OLD.stale THEN"
    f"  {_TAKE}; END IF; END IF;"
    " IF TG_OP <> 'DELETE' THEN IF NOT NEW.stale THEN"
    f"  {_ADD.format(rows='VALUES (NEW.grp, 1, NEW.open_conflicts)')}; END IF; END IF;"
    " RETURN NULL; END $$")
PG_TRIGGERS = (
    "CREATE TRIGGER queue_totals_rows AFTER INSERT OR DELETE ON queue_keys"
    " FOR EACH ROW EXECUTE FUNCTION annotator_queue_totals()",
    "CREATE TRIGGER queue_totals_moved AFTER UPDATE ON queue_keys FOR EACH ROW"
    " WHEN ((OLD.grp, OLD.open_conflicts, OLD.stale)"
    " IS DISTINCT FROM (NEW.grp, NEW.open_conflicts, NEW.stale))"
    " EXECUTE FUNCTION annotator_queue_totals()",
)
PG_RECOUNT = (
    f"CREATE FUNCTION annotator_queue_recount() RETURNS void LANGUAGE sql VOLATILE {_DEFINER}"
    f" AS $$ DELETE FROM queue_totals; {RECOUNT} $$")


def upgrade() -> None:
    op.create_table(
        "queue_totals",
        sa.Column("grp", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("cases", sa.BigInteger(), nullable=False),
        sa.Column("open_conflicts", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("grp", name=op.f("pk_queue_totals")),
    )
    install_totals("queue_totals", prefix="annotator_queue", recount=RECOUNT,
                   pg_functions=(PG_FUNCTION, PG_RECOUNT), pg_triggers=PG_TRIGGERS,
                   sqlite_triggers=SQLITE_TRIGGERS)


def downgrade() -> None:
    remove_totals("queue_totals", "queue_keys", prefix="annotator_queue",
                  pg_triggers=("queue_totals_rows", "queue_totals_moved"),
                  sqlite_triggers=SQLITE_TRIGGERS)
