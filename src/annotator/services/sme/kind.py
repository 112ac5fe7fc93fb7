"""SME verdicts on the rating engine: one SME's verdict on one task (an item reviewed against
one benchmark).

What is the SME's own: the benchmark's fields and scale (:mod:`annotator.sme.verdict` says
which apply and what they take), the benchmark version a verdict is given against, and the
automated verdict of a ``hybrid`` benchmark, revealed once the SME has submitted.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.errors import ValidationError
from annotator.services.rating.engine import Loaded, RatingKind
from annotator.services.sme.adjudication import decided_by_task, submitted_by_task
from annotator.services.sme.keys import heal_keys
from annotator.services.sme.review import benchmark_of, own_task, task_parts
from annotator.services.users import require_user
from annotator.sme.verdict import check_field, cleaned, conflicts, missing_fields, stale_fields
from annotator.store import sme_keys
from annotator.store.db_roles import revealed_automated, walled
from annotator.store.project import Project
from annotator.store.schema import SmeAdjudication, SmeBenchmark, SmeTask, SmeVerdict


class SmeKind(RatingKind):
    name = "sme"
    set_action = "sme_field_set"
    submit_action = "sme_submitted"
    adjudicate_action = "sme_adjudicated"
    adjudicate_permission = Action.ADJUDICATE_SME
    reveal_refusal = "submit your verdict before the automated verdict is shown"
    decision_model = SmeAdjudication

    def load(self, session: Session, actor: str, ref: Any) -> Loaded:
        task, item, bench, mine = own_task(session, actor, ref)
        return Loaded(mine, (task, item, bench))

    def title(self, loaded: Loaded) -> str:
        return self._name(loaded.item)

    @staticmethod
    def _name(parts: Any) -> str:
        _task, item, bench = parts
        return f"{item.item_id} {bench.code}"

    def refuse_edit(self, loaded: Loaded) -> str | None:
        if loaded.work.state == "submitted":
            return "this verdict is submitted; it can no longer change"
        return None

    def check(self, loaded: Loaded, key: str, value: Any) -> Any:
        return check_field(benchmark_of(loaded.item[2]), key, value)

    def history(self, loaded: Loaded) -> dict[str, Any]:
        return self.decision_history(loaded.item)

    def missing(self, session: Session, loaded: Loaded) -> list[str]:
        return missing_fields(benchmark_of(loaded.item[2]), loaded.work.fields)

    def ready(self, session: Session, loaded: Loaded) -> dict[str, Any]:
        benchmark, fields = benchmark_of(loaded.item[2]), loaded.work.fields
        missing = missing_fields(benchmark, fields)
        if missing:
            raise ValidationError(f"{self.title(loaded)}: not given yet: {', '.join(missing)}")
        stale = stale_fields(benchmark, fields)
        if stale:
            raise ValidationError(f"{self.title(loaded)}: {'; '.join(stale)}")
        return cleaned(fields)

    def submit_history(self, loaded: Loaded, snapshot: dict[str, Any]) -> dict[str, Any]:
        version = loaded.item[2].version
        return {**super().submit_history(loaded, snapshot), "benchmark_version": version}

    def after_submit(self, session: Session, actor: str, loaded: Loaded) -> None:
        loaded.work.benchmark_version = loaded.item[2].version

    def revealed(self, session: Session, loaded: Loaded) -> dict[str, Any] | None:
        """The automated verdict of a ``hybrid`` benchmark (None for the others)."""
        task, _item, bench = loaded.item
        if bench.evaluator_type != "hybrid":
            return None
        automated = revealed_automated(session, task.id) if walled(session) else task.automated
        return dict(automated) if automated else None

    def item_key(self, item: Any) -> str:
        return str(item[0].id)

    def load_item(self, session: Session, item_ref: Any) -> Any:
        return task_parts(session, item_ref)

    def submitted_items(self, session: Session) -> list[Any]:
        return list(session.scalars(
            select(SmeVerdict.task_id).where(SmeVerdict.state == "submitted").distinct()
        ))

    def open_conflict_totals(self, project: Project, actor: str) -> tuple[int, int]:
        """From the task keys the writes keep (store.sme_keys): a count, not every verdict."""
        def read(session: Session) -> tuple[int, int]:
            require_user(session, actor, Action.READ_OTHERS_WORK)
            heal_keys(session)
            return sme_keys.conflict_totals(session.connection())

        return project.read_healing(read)

    def open_conflicts_in(self, session: Session) -> dict[Any, list[str]]:
        """Every task's undecided conflicting fields from three reads (verdicts, decisions,
        tasks' benchmarks), not a few queries per task: the desk asks this on every refresh
        (2.4 s at 10,000 cases, 830 tasks, one by one)."""
        submitted = submitted_by_task(session)
        decided = decided_by_task(session)
        rules = {b.id: benchmark_of(b) for b in session.scalars(select(SmeBenchmark))}
        of_task = {t: b for t, b in session.execute(select(SmeTask.id, SmeTask.benchmark_id))}
        out: dict[Any, list[str]] = {}
        for task_id, verdicts in submitted.items():
            found = conflicts(rules[of_task[task_id]], verdicts)
            undecided = [key for key in found if key not in decided.get(task_id, {})]
            if undecided:
                out[task_id] = undecided
        return out

    def submitted_by_rater(self, session: Session, item: Any) -> dict[str, dict[str, Any]]:
        # This task's verdicts only: the desk's open conflicts ask once per task, and every
        # verdict each time made that quadratic (79 s at 10,000 cases, 830 SME tasks).
        return submitted_by_task(session, item[0].id).get(item[0].id, {})

    def rule(self, item: Any, submitted: dict[str, dict[str, Any]]) -> dict[str, str]:
        return conflicts(benchmark_of(item[2]), submitted)

    def check_decision(self, session: Session, item: Any, key: str, value: Any) -> Any:
        if key not in self.rule(item, self.submitted_by_rater(session, item)):
            raise ValidationError(f"{self._name(item)}: {key} is not in conflict")
        value = check_field(benchmark_of(item[2]), key, value)
        if value is None:
            raise ValidationError(f"an adjudication of {key} needs a value")
        return value

    def decision_of(self, item: Any) -> ColumnElement[bool]:
        pk: uuid.UUID = item[0].id
        return SmeAdjudication.task_id == pk

    def new_decision(
        self, item: Any, key: str, value: Any, reason: str, actor: str
    ) -> SmeAdjudication:
        return SmeAdjudication(
            task_id=item[0].id, key=key, value=value, reason=reason, adjudicator=actor
        )

    def decision_history(self, item: Any) -> dict[str, Any]:
        task, sme_item, bench = item
        return {"task": str(task.id), "item": sme_item.item_id, "benchmark": bench.code}


SME = SmeKind()
