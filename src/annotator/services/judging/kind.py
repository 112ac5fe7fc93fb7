"""Physicians' scores of judged outputs on the rating engine (Table 9's human reference).

What is the physician's own: the sheet's targets and trajectory keys
(:mod:`annotator.judging.sheet`), the acceptable-vs-unacceptable conflict rule
(:mod:`annotator.judging.human`), and the judges' scores, revealed once submitted.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.errors import ValidationError
from annotator.judging.human import conflicts
from annotator.judging.sheet import check_value
from annotator.services.judging.review import conflict_reason
from annotator.services.judging.scoring import judge_item, judges_of, missing_keys, own_sheet
from annotator.services.rating.engine import Loaded, RatingKind
from annotator.store.schema import JudgeAdjudication, JudgeItem, PhysicianScore, User


def trajectory(item: JudgeItem) -> list[str]:
    return [str(d) for d in item.model_payload.get("trajectory_unique_diagnoses", [])]


class JudgeKind(RatingKind):
    name = "judge"
    set_action = "judge_score_set"
    submit_action = "judge_scores_submitted"
    adjudicate_action = "judge_adjudicated"
    adjudicate_permission = Action.ADJUDICATE_JUDGED
    reveal_refusal = "submit your scores before revealing the judges'"
    decision_model = JudgeAdjudication

    def load(self, session: Session, actor: str, ref: Any) -> Loaded:
        item = judge_item(session, ref)
        return Loaded(own_sheet(session, actor, item.id), item)

    def title(self, loaded: Loaded) -> str:
        return f"output {loaded.item.position}"

    def refuse_edit(self, loaded: Loaded) -> str | None:
        if loaded.work.submitted_at is not None:
            return "this output is submitted; its scores can no longer change"
        return None

    def check(self, loaded: Loaded, key: str, value: Any) -> Any:
        check_value(key, value, trajectory(loaded.item))
        return value

    def history(self, loaded: Loaded) -> dict[str, Any]:
        return self.decision_history(loaded.item)

    def missing(self, session: Session, loaded: Loaded) -> list[str]:
        return missing_keys(loaded.item, loaded.work.scores)

    def ready(self, session: Session, loaded: Loaded) -> dict[str, Any]:
        missing = self.missing(session, loaded)
        if missing:
            raise ValidationError(
                f"not scored yet: {', '.join(missing[:4])}" + (" ..." if len(missing) > 4 else "")
            )
        return dict(loaded.work.scores)

    def revealed(self, session: Session, loaded: Loaded) -> dict[str, dict[str, Any]]:
        """The judges' scores and reasons of the output."""
        return judges_of(session, loaded.item.id)

    def item_key(self, item: Any) -> str:
        return str(item.id)

    def load_item(self, session: Session, item_ref: Any) -> JudgeItem:
        return judge_item(session, item_ref)

    def submitted_items(self, session: Session) -> list[Any]:
        return list(session.scalars(
            select(PhysicianScore.item_id).where(PhysicianScore.submitted_at.is_not(None))
            .distinct()
        ))

    def open_conflicts_in(self, session: Session) -> dict[Any, list[str]]:
        """Every output's undecided conflicting keys from two reads (submitted sheets,
        decisions), not a few queries per output."""
        sheets: dict[Any, dict[str, dict[str, Any]]] = {}
        for item_id, scorer, scores in session.execute(
            select(PhysicianScore.item_id, PhysicianScore.scorer_id, PhysicianScore.scores)
            .where(PhysicianScore.submitted_at.is_not(None))
            .order_by(PhysicianScore.created_at, PhysicianScore.id)
        ):
            sheets.setdefault(item_id, {})[str(scorer)] = dict(scores)
        decided: dict[Any, set[str]] = {}
        for item_id, key in session.execute(
            select(JudgeAdjudication.item_id, JudgeAdjudication.key)
            .where(JudgeAdjudication.superseded.is_(False))
        ):
            decided.setdefault(item_id, set()).add(key)
        out: dict[Any, list[str]] = {}
        for item_id, submitted in sheets.items():
            undecided = [key for key in conflicts(submitted) if key not in decided.get(item_id, ())]
            if undecided:
                out[item_id] = undecided
        return out

    def submitted_by_rater(self, session: Session, item: Any) -> dict[str, dict[str, Any]]:
        rows = session.execute(
            select(PhysicianScore, User.name)
            .join(User, User.id == PhysicianScore.scorer_id)
            .where(PhysicianScore.item_id == item.id, PhysicianScore.submitted_at.is_not(None))
            .order_by(PhysicianScore.created_at, PhysicianScore.id)
        )
        return {name: dict(row.scores) for row, name in rows}

    def rule(self, item: Any, submitted: dict[str, dict[str, Any]]) -> dict[str, str]:
        return {key: conflict_reason(key, values) for key, values in conflicts(submitted).items()}

    def check_decision(self, session: Session, item: Any, key: str, value: Any) -> Any:
        check_value(key, value, trajectory(item))
        return value

    def decision_of(self, item: Any) -> ColumnElement[bool]:
        pk: uuid.UUID = item.id
        return JudgeAdjudication.item_id == pk

    def new_decision(
        self, item: Any, key: str, value: Any, reason: str, actor: str
    ) -> JudgeAdjudication:
        return JudgeAdjudication(
            item_id=item.id, key=key, value=value, reason=reason, adjudicator=actor
        )

    def decision_history(self, item: Any) -> dict[str, Any]:
        return {"case_pk": item.case_pk, "item": str(item.id)}


JUDGE = JudgeKind()
