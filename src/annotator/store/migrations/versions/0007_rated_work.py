"""one family of tables for rated work: rated_work (annotations, SME verdicts, physicians'
scores) and decisions (their adjudications), single-table inheritance by ``kind``

Every row keeps its id, so history entries that name an annotation stay valid.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from annotator.store.migrations._ops import columns, create_indexes, fk, table

revision = "0007_rated_work"
down_revision = "0006_sme"

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
    decided = "key s300, value json?"
    tail = "adjudicator s200, decided_at time, superseded bool"
    specs = {
        "annotations": "id uuid, case_pk uuid, annotator_id uuid, revision_id uuid, state s20,"
        " labels json, submitted_labels json?, submitted_at time?, needs_recheck bool,"
        " withdrawn_at time?, created_at time, updated_at time, version int",
        "sme_verdicts": "id uuid, task_id uuid, reviewer_id uuid, state s20, fields json,"
        " submitted json?, submitted_at time?, needs_recheck bool, benchmark_version int,"
        " created_at time, updated_at time, version int",
        "physician_scores": "id uuid, item_id uuid, scorer_id uuid, scores json,"
        " submitted_at time?, source s20, created_at time, version int",
        "adjudications": f"id uuid, case_pk uuid, {decided}, reason_code s50, reason_text text,"
        f" {tail}",
        "sme_adjudications": f"id uuid, task_id uuid, key s50, value json?, reason text, {tail}",
        "judge_adjudications": f"id uuid, item_id uuid, {decided}, reason text, {tail}",
    }
    return {name: columns(spec) for name, spec in specs.items()}


def _create_new() -> tuple[sa.Table, sa.Table]:
    work = table(
        "rated_work",
        "id uuid, kind s10, rater_id uuid, state s20, values json, submitted json?,"
        " submitted_at time?, needs_recheck bool, withdrawn_at time?, created_at time,"
        " updated_at time, version int, case_pk uuid?, revision_id uuid?, task_id uuid?,"
        " benchmark_version int?, item_id uuid?, source s20?",
        checks={"kind": KINDS, "state": STATES},
        fks="rater_id>users case_pk>cases revision_id>case_revisions task_id>sme_tasks"
        " item_id>judge_items",
        unique={"case_rater": "case_pk rater_id", "task_rater": "task_id rater_id",
                "item_rater": "item_id rater_id"},
        index="rater_id case_pk task_id item_id",
    )
    decisions = table(
        "decisions",
        "id uuid, kind s10, key s300, value json?, reason text, adjudicator s200,"
        " decided_at time, superseded bool, case_pk uuid?, reason_code s50?, task_id uuid?,"
        " item_id uuid?",
        checks={"kind": KINDS, "reason": "kind <> 'sme' OR length(reason) > 0"},
        fks="case_pk>cases task_id>sme_tasks item_id>judge_items",
        index="case_pk task_id item_id",
    )
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
            fk("annotations", "annotator_id>users"), fk("annotations", "case_pk>cases"),
            fk("annotations", "revision_id>case_revisions"),
            sa.UniqueConstraint("case_pk", "annotator_id", name="case_annotator"),
        ],
        "sme_verdicts": [
            sa.CheckConstraint(STATES, name=op.f("ck_sme_verdicts_state")),
            fk("sme_verdicts", "task_id>sme_tasks"),
            fk("sme_verdicts", "reviewer_id>users"),
            sa.UniqueConstraint("task_id", "reviewer_id", name="task_reviewer"),
        ],
        "physician_scores": [
            fk("physician_scores", "item_id>judge_items"),
            fk("physician_scores", "scorer_id>users"),
            sa.UniqueConstraint("item_id", "scorer_id", name="item_scorer"),
        ],
        "adjudications": [fk("adjudications", "case_pk>cases")],
        "sme_adjudications": [
            sa.CheckConstraint("length(reason) > 0", name=op.f("ck_sme_adjudications_reason")),
            fk("sme_adjudications", "task_id>sme_tasks"),
        ],
        "judge_adjudications": [fk("judge_adjudications", "item_id>judge_items")],
    }
    indexes = {
        "annotations": "annotator_id case_pk", "sme_verdicts": "task_id reviewer_id",
        "physician_scores": "item_id scorer_id", "adjudications": "case_pk",
        "sme_adjudications": "task_id", "judge_adjudications": "item_id",
    }
    for source, moves in (("rated_work", WORK), ("decisions", DECISIONS)):
        for name, (kind, renames) in moves.items():
            back = {v: k for k, v in renames.items()}
            created = op.create_table(
                name, *tables[name], *extra[name],
                sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
            )
            create_indexes(name, indexes[name])
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
