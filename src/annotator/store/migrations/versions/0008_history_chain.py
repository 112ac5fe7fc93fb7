"""History hash chain: seq, prev_hash and row_hash on history, the chain head table.

Existing rows are chained in their existing order (time, then id); the append-only
triggers are lifted for that one backfill and put back as they were.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from annotator.store.chain import GENESIS, HEAD_ID, row_hash

revision = "0008_history_chain"
down_revision = "0007_rated_work"
branch_labels = None
depends_on = None

_history = sa.table(
    "history",
    sa.column("id", sa.Uuid()), sa.column("at", sa.DateTime()), sa.column("actor", sa.String()),
    sa.column("action", sa.String()), sa.column("case_pk", sa.Uuid()),
    sa.column("annotation_id", sa.Uuid()), sa.column("key", sa.String()),
    sa.column("before", sa.JSON()), sa.column("after", sa.JSON()),
    sa.column("detail", sa.JSON()), sa.column("seq", sa.BigInteger()),
    sa.column("prev_hash", sa.String()), sa.column("row_hash", sa.String()),
)
_SQLITE_TRIGGERS = {
    verb: f"CREATE TRIGGER history_no_{verb.lower()} BEFORE {verb} ON history "
          "BEGIN SELECT RAISE(ABORT, 'history is append-only'); END"
    for verb in ("UPDATE", "DELETE")
}


def upgrade() -> None:
    op.add_column("history", sa.Column("seq", sa.BigInteger(), nullable=True))
    op.add_column("history", sa.Column("prev_hash", sa.String(length=64), nullable=True))
    op.add_column("history", sa.Column("row_hash", sa.String(length=64), nullable=True))
    op.create_index(op.f("ix_history_seq"), "history", ["seq"], unique=True)
    head = op.create_table(
        "history_chain",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_history_chain")),
    )
    seq, last = _backfill()
    op.bulk_insert(head, [{"id": HEAD_ID, "seq": seq, "hash": last}])


def _backfill() -> tuple[int, str]:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    if sqlite:
        op.execute("DROP TRIGGER history_no_update")
    else:
        op.execute("ALTER TABLE history DISABLE TRIGGER history_append_only")
    rows = bind.execute(sa.select(_history).order_by(_history.c.at, _history.c.id)).all()
    seq, last = 0, GENESIS
    for row in rows:
        seq, prev = seq + 1, last
        last = row_hash(prev, row)
        bind.execute(_history.update().where(_history.c.id == row.id)
                     .values(seq=seq, prev_hash=prev, row_hash=last))
    if sqlite:
        op.execute(_SQLITE_TRIGGERS["UPDATE"])
    else:
        op.execute("ALTER TABLE history ENABLE TRIGGER history_append_only")
    return seq, last


def downgrade() -> None:
    op.drop_table("history_chain")
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        # Batch mode copies the table, which drops its triggers: put them back.
        with op.batch_alter_table("history") as batch_op:
            batch_op.drop_index(batch_op.f("ix_history_seq"))
            batch_op.drop_column("row_hash")
            batch_op.drop_column("prev_hash")
            batch_op.drop_column("seq")
        for statement in _SQLITE_TRIGGERS.values():
            op.execute(statement)
    else:
        op.drop_index(op.f("ix_history_seq"), table_name="history")
        for column in ("row_hash", "prev_hash", "seq"):
            op.drop_column("history", column)
