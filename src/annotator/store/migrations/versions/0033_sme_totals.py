"""The SME tasks' totals per benchmark and state, kept by triggers on ``sme_task_keys``
(issue 27), as 0032 keeps the review queue's.

The desk's SME progress and open conflicts counted every fresh task key (they grow with the
benchmark's items). ``sme_totals`` holds one row per benchmark and state: its tasks, how
many have an open conflict, and their open conflicts; triggers add and take away every fresh
key whoever writes it (the app's sessions, ``annotator_sme_stale``, the bench's clone, a
repair). Backfilled from the keys as they stand. On PostgreSQL the trigger function is
``SECURITY DEFINER``, seniors read the totals as they read the keys, and
``annotator_sme_recount`` lets ``repair`` count them again; each writer of keys holds the
history chain's head first (``store.chain.hold_head``).

Revision ID: 0033_sme_totals
Revises: 0032_queue_totals
"""

from __future__ import annotations

from annotator.store.migrations._ops import install_totals, remove_totals, table

revision = "0033_sme_totals"
down_revision = "0032_queue_totals"
branch_labels = None
depends_on = None

_HAS = "CASE WHEN {row}.open_conflicts > 0 THEN 1 ELSE 0 END"
RECOUNT = ("INSERT INTO sme_totals (benchmark_id, state, tasks, conflicted, open_conflicts)"
           f" SELECT benchmark_id, state, count(*), sum({_HAS.format(row='sme_task_keys')}),"
           " coalesce(sum(open_conflicts), 0) FROM sme_task_keys WHERE NOT stale"
           " GROUP BY benchmark_id, state")
_ADD = ("INSERT INTO sme_totals (benchmark_id, state, tasks, conflicted, open_conflicts) {rows}"
        " ON CONFLICT (benchmark_id, state) DO UPDATE SET tasks = sme_totals.tasks + 1,"
        " conflicted = sme_totals.conflicted + excluded.conflicted,"
        " open_conflicts = sme_totals.open_conflicts + excluded.open_conflicts")
_NEW = f"NEW.benchmark_id, NEW.state, 1, {_HAS.format(row='NEW')}, NEW.open_conflicts"
_TAKE = (f"UPDATE sme_totals SET tasks = tasks - 1, conflicted = conflicted - "
         f"{_HAS.format(row='OLD')}, open_conflicts = open_conflicts - OLD.open_conflicts"
         " WHERE benchmark_id = OLD.benchmark_id AND state = OLD.state")
_MOVED = ("OLD.benchmark_id IS NOT NEW.benchmark_id OR OLD.state IS NOT NEW.state"
          " OR OLD.open_conflicts IS NOT NEW.open_conflicts OR OLD.stale IS NOT NEW.stale")
SQLITE_TRIGGERS = {
    "sme_totals_insert": (
        "CREATE TRIGGER sme_totals_insert AFTER INSERT ON sme_task_keys WHEN NOT NEW.stale"
        f" BEGIN {_ADD.format(rows=f'VALUES ({_NEW})')}; END"),
    "sme_totals_delete": (
        f"CREATE TRIGGER sme_totals_delete AFTER DELETE ON sme_task_keys WHEN NOT OLD.stale"
        f" BEGIN {_TAKE}; END"),
    "sme_totals_update": (
        "CREATE TRIGGER sme_totals_update AFTER UPDATE OF benchmark_id, state, open_conflicts,"
        f" stale ON sme_task_keys WHEN {_MOVED} BEGIN {_TAKE} AND NOT OLD.stale;"
        f" {_ADD.format(rows=f'SELECT {_NEW} WHERE NOT NEW.stale')}; END"),
}
_DEFINER = "SECURITY DEFINER SET search_path = public, pg_temp"
PG_FUNCTION = (
    f"CREATE FUNCTION annotator_sme_totals() RETURNS trigger LANGUAGE plpgsql {_DEFINER}"
    " AS $$ BEGIN"
    f" IF TG_OP <> 'INSERT' THEN IF NOT OLD.stale THEN {_TAKE}; END IF; END IF;"
    " IF TG_OP <> 'DELETE' THEN IF NOT NEW.stale THEN"
    f"  {_ADD.format(rows=f'VALUES ({_NEW})')}; END IF; END IF;"
    " RETURN NULL; END $$")
PG_TRIGGERS = (
    "CREATE TRIGGER sme_totals_rows AFTER INSERT OR DELETE ON sme_task_keys"
    " FOR EACH ROW EXECUTE FUNCTION annotator_sme_totals()",
    "CREATE TRIGGER sme_totals_moved AFTER UPDATE ON sme_task_keys FOR EACH ROW"
    " WHEN ((OLD.benchmark_id, OLD.state, OLD.open_conflicts, OLD.stale)"
    " IS DISTINCT FROM (NEW.benchmark_id, NEW.state, NEW.open_conflicts, NEW.stale))"
    " EXECUTE FUNCTION annotator_sme_totals()",
)
PG_RECOUNT = (
    f"CREATE FUNCTION annotator_sme_recount() RETURNS void LANGUAGE sql VOLATILE {_DEFINER}"
    f" AS $$ DELETE FROM sme_totals; {RECOUNT} $$")


def upgrade() -> None:
    table("sme_totals", "benchmark_id uuid, state s12, tasks bigint, conflicted bigint,"
          " open_conflicts bigint", pk="benchmark_id state")
    install_totals("sme_totals", prefix="annotator_sme", recount=RECOUNT,
                   pg_functions=(PG_FUNCTION, PG_RECOUNT), pg_triggers=PG_TRIGGERS,
                   sqlite_triggers=SQLITE_TRIGGERS)


def downgrade() -> None:
    remove_totals("sme_totals", "sme_task_keys", prefix="annotator_sme",
                  pg_triggers=("sme_totals_rows", "sme_totals_moved"),
                  sqlite_triggers=SQLITE_TRIGGERS)
