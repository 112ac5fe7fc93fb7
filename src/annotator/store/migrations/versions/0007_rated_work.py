"""one family of tables for rated work: rated_work (annotations, SME verdicts, physicians'
scores) and decisions (their adjudications), single-table inheritance by ``kind``

Every row keeps its id, so history entries that name an annotation stay valid.

Revision ID: 0007_rated_work
Revises: 0006_sme
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007_rated_work"
down_revision = "0006_sme"
branch_labels = None
depends_on = None

STATES = "state IN ('assigned', 'in_progress', 'submitted')"
KINDS = "kind IN ('case', 'sme', 'judge')"

# old table -> (kind, {old column: new column}); columns not named keep their name.
WORK = {
    "annotations": ("case", {"annotator_id": "rater_id", "labels": "values",
                             "submitted_labels": "submitted"}),
    "sme_verdicts": ("sme", {"reviewer_id": "rater_id", "fields": "values"}),
    "physician_scores": ("judge", {"scorer_id": "rater_id", "scores": "values"}),
}
DECISIONS = {
    "adjudications": ("case", {"reason_text": "reason"}),
    "sme_adjudications": ("sme", {}),
    "judge_adjudications": ("judge", {}),
}


def _old_tables() -> dict[str, list[sa.Column[Any]]]:
    """The six tables of revision 0006, as they were created (constraints aside)."""
    def col(name: str, type_: Any, nullable: bool = False) -> sa.Column[Any]:
        return sa.Column(name, type_, nullable=nullable)

    uid, js, dt, txt = sa.Uuid(), sa.JSON(), sa.DateTime(), sa.Text()

    def decided() -> list[sa.Column[Any]]:
        return [col("key", sa.String(300)), col("value", js, True)]

    def tail() -> list[sa.Column[Any]]:
        return [col("adjudicator", sa.String(200)), col("decided_at", dt),
                col("superseded", sa.Boolean())]

    return {
        "annotations": [
            col("id", uid), col("case_pk", uid), col("annotator_id", uid),
            col("revision_id", uid), col("state", sa.String(20)), col("labels", js),
            col("submitted_labels", js, True), col("submitted_at", dt, True),
            col("needs_recheck", sa.Boolean()), col("withdrawn_at", dt, True),
            col("created_at", dt), col("updated_at", dt), col("version", sa.Integer()),
        ],
        "sme_verdicts": [
            col("id", uid), col("task_id", uid), col("reviewer_id", uid),
            col("state", sa.String(20)), col("fields", js), col("submitted", js, True),
            col("submitted_at", dt, True), col("needs_recheck", sa.Boolean()),
            col("benchmark_version", sa.Integer()), col("created_at", dt),
            col("updated_at", dt), col("version", sa.Integer()),
        ],
        "physician_scores": [
            col("id", uid), col("item_id", uid), col("scorer_id", uid), col("scores", js),
            col("submitted_at", dt, True), col("source", sa.String(20)), col("created_at", dt),
            col("version", sa.Integer()),
        ],
        "adjudications": [
            col("id", uid), col("case_pk", uid), *decided(), col("reason_code", sa.String(50)),
            col("reason_text", txt), *tail(),
        ],
        "sme_adjudications": [
            col("id", uid), col("task_id", uid), col("key", sa.String(50)), col("value", js, True),
            col("reason", txt), *tail(),
        ],
        "judge_adjudications": [
            col("id", uid), col("item_id", uid), *decided(), col("reason", txt), *tail(),
        ],
    }


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}")
    )


def _create_new() -> tuple[sa.Table, sa.Table]:
    work = op.create_table(
        "rated_work",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("rater_id", sa.Uuid(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("values", sa.JSON(), nullable=False),
        sa.Column("submitted", sa.JSON(), nullable=True),
        sa.Column("submitted_at", sa.DateTime(), nullable=True),
        sa.Column("needs_recheck", sa.Boolean(), nullable=False),
        sa.Column("withdrawn_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("case_pk", sa.Uuid(), nullable=True),
        sa.Column("revision_id", sa.Uuid(), nullable=True),
        sa.Column("task_id", sa.Uuid(), nullable=True),
        sa.Column("benchmark_version", sa.Integer(), nullable=True),
        sa.Column("item_id", sa.Uuid(), nullable=True),
        sa.Column("source", sa.String(length=20), nullable=True),
        sa.CheckConstraint(KINDS, name=op.f("ck_rated_work_kind")),
        sa.CheckConstraint(STATES, name=op.f("ck_rated_work_state")),
        _fk("rated_work", "rater_id", "users"),
        _fk("rated_work", "case_pk", "cases"),
        _fk("rated_work", "revision_id", "case_revisions"),
        _fk("rated_work", "task_id", "sme_tasks"),
        _fk("rated_work", "item_id", "judge_items"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rated_work")),
        sa.UniqueConstraint("case_pk", "rater_id", name="case_rater"),
        sa.UniqueConstraint("task_id", "rater_id", name="task_rater"),
        sa.UniqueConstraint("item_id", "rater_id", name="item_rater"),
    )
    with op.batch_alter_table("rated_work") as batch_op:
        for column in ("rater_id", "case_pk", "task_id", "item_id"):
            batch_op.create_index(batch_op.f(f"ix_rated_work_{column}"), [column])
    decisions = op.create_table(
        "decisions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("adjudicator", sa.String(length=200), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=False),
        sa.Column("superseded", sa.Boolean(), nullable=False),
        sa.Column("case_pk", sa.Uuid(), nullable=True),
        sa.Column("reason_code", sa.String(length=50), nullable=True),
        sa.Column("task_id", sa.Uuid(), nullable=True),
        sa.Column("item_id", sa.Uuid(), nullable=True),
        sa.CheckConstraint(KINDS, name=op.f("ck_decisions_kind")),
        sa.CheckConstraint("kind <> 'sme' OR length(reason) > 0",
                           name=op.f("ck_decisions_reason")),
        _fk("decisions", "case_pk", "cases"),
        _fk("decisions", "task_id", "sme_tasks"),
        _fk("decisions", "item_id", "judge_items"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_decisions")),
    )
    with op.batch_alter_table("decisions") as batch_op:
        for column in ("case_pk", "task_id", "item_id"):
            batch_op.create_index(batch_op.f(f"ix_decisions_{column}"), [column])
    return work, decisions


def _judge_defaults(row: dict[str, Any]) -> dict[str, Any]:
    """Physicians' scores had no state, recheck flag or snapshot: derive them."""
    submitted = row["submitted_at"] is not None
    return {
        "state": "submitted" if submitted else ("in_progress" if row["values"] else "assigned"),
        "submitted": dict(row["values"]) if submitted else None,
        "needs_recheck": False,
        "updated_at": row["created_at"],
    }


def upgrade() -> None:
    bind = op.get_bind()
    old = {name: sa.Table(name, sa.MetaData(), *cols) for name, cols in _old_tables().items()}
    work, decisions = _create_new()
    for target, moves in ((work, WORK), (decisions, DECISIONS)):
        for name, (kind, renames) in moves.items():
            rows = []
            for found in bind.execute(sa.select(old[name])).mappings():
                row = {renames.get(k, k): v for k, v in found.items()}
                row["kind"] = kind
                if name == "physician_scores":
                    row.update(_judge_defaults(row))
                rows.append(row)
            if rows:
                op.bulk_insert(target, rows)
    for name in (*DECISIONS, *WORK):
        op.drop_table(name)


def _typed(name: str) -> sa.Table:
    """A new table for reading, its column types told by their names (no reflection: SQLite
    would give UUIDs back as text)."""
    names = [c["name"] for c in sa.inspect(op.get_bind()).get_columns(name)]

    def type_of(column: str) -> Any:
        if column == "id" or column.endswith(("_id", "_pk")):
            return sa.Uuid()
        if column in ("values", "submitted", "value"):
            return sa.JSON()
        if column.endswith("_at"):
            return sa.DateTime()
        if column in ("needs_recheck", "superseded"):
            return sa.Boolean()
        return sa.Integer() if column in ("version", "benchmark_version") else sa.Text()

    return sa.Table(name, sa.MetaData(), *(sa.Column(n, type_of(n)) for n in names))


def downgrade() -> None:
    bind = op.get_bind()
    new = {name: _typed(name) for name in ("rated_work", "decisions")}
    tables = _old_tables()
    extra: dict[str, list[Any]] = {
        "annotations": [
            sa.CheckConstraint(STATES, name=op.f("ck_annotations_state")),
            _fk("annotations", "annotator_id", "users"), _fk("annotations", "case_pk", "cases"),
            _fk("annotations", "revision_id", "case_revisions"),
            sa.UniqueConstraint("case_pk", "annotator_id", name="case_annotator"),
        ],
        "sme_verdicts": [
            sa.CheckConstraint(STATES, name=op.f("ck_sme_verdicts_state")),
            _fk("sme_verdicts", "task_id", "sme_tasks"),
            _fk("sme_verdicts", "reviewer_id", "users"),
            sa.UniqueConstraint("task_id", "reviewer_id", name="task_reviewer"),
        ],
        "physician_scores": [
            _fk("physician_scores", "item_id", "judge_items"),
            _fk("physician_scores", "scorer_id", "users"),
            sa.UniqueConstraint("item_id", "scorer_id", name="item_scorer"),
        ],
        "adjudications": [_fk("adjudications", "case_pk", "cases")],
        "sme_adjudications": [
            sa.CheckConstraint("length(reason) > 0", name=op.f("ck_sme_adjudications_reason")),
            _fk("sme_adjudications", "task_id", "sme_tasks"),
        ],
        "judge_adjudications": [_fk("judge_adjudications", "item_id", "judge_items")],
    }
    indexes = {
        "annotations": ["annotator_id", "case_pk"], "sme_verdicts": ["task_id", "reviewer_id"],
        "physician_scores": ["item_id", "scorer_id"], "adjudications": ["case_pk"],
        "sme_adjudications": ["task_id"], "judge_adjudications": ["item_id"],
    }
    for source, moves in (("rated_work", WORK), ("decisions", DECISIONS)):
        for name, (kind, renames) in moves.items():
            back = {v: k for k, v in renames.items()}
            created = op.create_table(
                name, *tables[name], *extra[name],
                sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
            )
            with op.batch_alter_table(name) as batch_op:
                for column in indexes[name]:
                    batch_op.create_index(batch_op.f(f"ix_{name}_{column}"), [column])
            keep = {c.name for c in created.columns}
            query = sa.select(new[source]).where(new[source].c.kind == kind)
            rows = [
                {back.get(k, k): v for k, v in found.items() if back.get(k, k) in keep}
                for found in bind.execute(query).mappings()
            ]
            if rows:
                op.bulk_insert(created, rows)
    op.drop_table("decisions")
    op.drop_table("rated_work")
