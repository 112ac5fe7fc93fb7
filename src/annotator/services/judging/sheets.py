"""``judge-scores FILE.csv``: physicians' spreadsheet scores of judged outputs.

Columns ``scorer, run, case_id, target, diagnosis, score, label``; ``run`` is the run's
``run_config.target_model``. Every row is checked first; any bad row refuses the whole
file (named by line and reason), so nothing is half-applied. A sheet a file completes is
submitted, as on the page.
"""

from __future__ import annotations

import csv
import io
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.domain.permissions import Action
from annotator.domain.text import clip, clipped
from annotator.errors import ValidationError
from annotator.inputfiles import read_regular
from annotator.judging.runfile import ALL_TARGETS
from annotator.judging.sheet import check_value, trajectory_key
from annotator.services.judging.kind import JUDGE
from annotator.services.judging.scoring import missing_keys
from annotator.services.rating.engine import FieldEdit, Loaded
from annotator.services.users import require, takes_work
from annotator.store.project import Project
from annotator.store.schema import JudgedRun, JudgeItem, PhysicianScore, User

COLUMNS = ("scorer", "run", "case_id", "target", "diagnosis", "score", "label")
MAX_LISTED = 10
MAX_CSV_BYTES = 64 * 2**20


@dataclass
class CsvReport:
    rows: int = 0
    submitted: int = 0
    drafts: list[str] = field(default_factory=list)  # "scorer run case: missing ..."


def _parse_row(row: dict[str, str], item: JudgeItem) -> dict[str, Any]:
    target = row["target"].strip()
    if target not in ALL_TARGETS:
        raise ValueError(f"target must be one of {', '.join(ALL_TARGETS)}, not {clipped(target)}")
    diagnosis, label = row["diagnosis"].strip(), row["label"].strip()
    try:
        score = int(row["score"].strip())
    except ValueError:
        raise ValueError(f"score must be 0, 1, 2 or 3, not {clipped(row['score'])}") from None
    diagnoses = [str(d) for d in item.model_payload.get("trajectory_unique_diagnoses", [])]
    if target != "trajectory":
        if diagnosis or label:
            raise ValueError("diagnosis and label are only for target trajectory")
        check_value(target, score, diagnoses)
        return {target: score}
    if not diagnosis:
        raise ValueError("target trajectory needs a diagnosis")
    keys: dict[str, Any] = {trajectory_key(diagnosis, "score"): score}
    if label:
        keys[trajectory_key(diagnosis, "label")] = label
    for key, value in keys.items():
        check_value(key, value, diagnoses)
    return keys


def read_rows(path: Path) -> list[dict[str, str]]:
    """The sheet's rows; refuses an unreadable file or one without the expected columns."""
    try:  # a regular file only (a FIFO would block); csv.Error: a NUL or an over-long field
        text = read_regular(path, MAX_CSV_BYTES).decode("utf-8-sig")
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in reader.fieldnames or []]
        rows = list(reader)
    except (OSError, ValueError, csv.Error) as exc:  # UnicodeDecodeError is a ValueError
        why = getattr(exc, "strerror", None) or exc
        raise ValidationError(f"{path.name}: cannot read ({why})") from None
    absent = [c for c in COLUMNS if c not in header]
    if absent:
        raise ValidationError(f"{path.name}: missing column(s) {', '.join(absent)}")
    return rows


def _row_target(
    row: dict[str, str],
    users: dict[str, User],
    runs: dict[str, list[uuid.UUID]],
    items: dict[tuple[uuid.UUID, str], JudgeItem],
) -> tuple[User, JudgeItem]:
    """The scorer and the judged item a row is about; ValueError says why it has none."""
    user = users.get(row["scorer"].strip())
    if user is None or not takes_work(user):
        raise ValueError(f"scorer {clipped(row['scorer'])} is not an annotator here")
    run_ids = runs.get(row["run"].strip(), [])
    if len(run_ids) != 1:
        raise ValueError(
            f"run {clipped(row['run'])} is " + ("not imported" if not run_ids else "ambiguous")
        )
    item = items.get((run_ids[0], row["case_id"].strip()))
    if item is None:
        raise ValueError(f"run {clip(row['run'])} has no case {clipped(row['case_id'])}")
    return user, item


def import_scores_csv(project: Project, actor: str, path: Path) -> CsvReport:
    """Check every row, then apply them all in one transaction."""
    with project.read() as session:  # refused before the file is read, not after
        require(session, actor, Action.IMPORT_SCORE_SHEETS)
    rows = read_rows(path)
    report = CsvReport(rows=len(rows))
    with project.tx() as session:
        require(session, actor, Action.IMPORT_SCORE_SHEETS)
        users = {u.name: u for u in session.scalars(select(User))}
        runs: dict[str, list[uuid.UUID]] = {}
        for run in session.scalars(select(JudgedRun)):
            runs.setdefault(run.target_model, []).append(run.id)
        items = {(i.run_id, i.case_id): i for i in session.scalars(select(JudgeItem))}
        sheets: dict[tuple[str, uuid.UUID], dict[str, Any]] = {}
        errors: list[str] = []
        for line, raw in enumerate(rows, start=2):
            row = {k.strip(): (v or "") for k, v in raw.items() if k}
            try:
                user, item = _row_target(row, users, runs, items)
                sheet = sheets.setdefault((user.name, item.id), {})
                for key, value in _parse_row(row, item).items():
                    if key in sheet and sheet[key] != value:
                        raise ValueError(f"{key} scored twice with different values")
                    sheet[key] = value
            except (ValueError, ValidationError) as exc:
                errors.append(f"line {line}: {exc}")
        if errors:
            more = f" (and {len(errors) - MAX_LISTED} more)" if len(errors) > MAX_LISTED else ""
            raise ValidationError(f"{path.name}: " + "; ".join(errors[:MAX_LISTED]) + more)
        by_id = {i.id: i for i in items.values()}
        for (name, item_id), sheet in sheets.items():
            _apply(session, actor, users[name], by_id[item_id], sheet, report, path.name)
    return report


def _apply(
    session: Any,
    actor: str,
    user: User,
    item: JudgeItem,
    sheet: dict[str, Any],
    report: CsvReport,
    source: str,
) -> None:
    row = session.scalars(
        select(PhysicianScore).where(
            PhysicianScore.item_id == item.id, PhysicianScore.scorer_id == user.id
        )
    ).first()
    if row is None:
        row = PhysicianScore(item_id=item.id, scorer_id=user.id, scores={}, source="csv")
        session.add(row)
        session.flush()
    if row.submitted_at is not None:
        changed = {k: v for k, v in sheet.items() if row.scores.get(k) != v}
        if changed:
            raise ValidationError(
                f"{source}: {user.name} already submitted {item.case_id}; "
                f"{next(iter(changed))} would change"
            )
        return
    loaded = Loaded(row, item)
    JUDGE.set_in(session, actor, loaded, [FieldEdit(k, v) for k, v in sheet.items()],
                 scorer=user.name, file=source)
    missing = missing_keys(item, row.scores)
    if missing:
        report.drafts.append(f"{user.name} {item.case_id}: missing {', '.join(missing[:3])}")
        return
    JUDGE.submit_in(session, actor, loaded, scorer=user.name, file=source)
    report.submitted += 1
