"""The project's tables (SQLAlchemy 2 declarative). The only place that defines storage.

Keys are UUIDs so that work merged from several laptops never collides; rows that several
people may edit carry a ``version`` used for optimistic locking. States are strings guarded by
CHECK constraints (not PostgreSQL enums) so that migrations stay simple on both back ends.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from annotator.domain.states import ANNOTATION_STATES, CASE_STATES, ROLES

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Naive UTC now: both back ends store and return the same value."""
    return datetime.now(UTC).replace(tzinfo=None)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Setting(Base):
    """Project-wide settings (project id, de-identification seed, card prose, ...)."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)


class User(Base):
    __tablename__ = "users"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    # Salted scrypt (domain/passwords.py); None: no login set (SQLite projects never need one).
    password_hash: Mapped[str | None] = mapped_column(String(300), nullable=True)
    roles: Mapped[list[UserRole]] = relationship(
        back_populates="user", cascade="all, delete-orphan", lazy="selectin"
    )

    @property
    def role_names(self) -> list[str]:
        return sorted(r.role for r in self.roles)


class UserRole(Base):
    __tablename__ = "user_roles"
    __table_args__ = (CheckConstraint(_in("role", ROLES), name="role"),)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), primary_key=True)
    role: Mapped[str] = mapped_column(String(20), primary_key=True)
    user: Mapped[User] = relationship(back_populates="roles")


class Case(Base):
    __tablename__ = "cases"
    __table_args__ = (CheckConstraint(_in("state", CASE_STATES), name="state"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    case_id: Mapped[str] = mapped_column(String(200), unique=True)
    state: Mapped[str] = mapped_column(String(20), default="annotating")
    state_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    # No FK: cases and revisions would reference each other; the service keeps it consistent.
    current_revision_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    green_lit_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    green_lit_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    __mapper_args__ = {"version_id_col": version}


class CaseRevision(Base):
    """One imported version of a case's draft, identified by its content hash."""

    __tablename__ = "case_revisions"
    __table_args__ = (UniqueConstraint("case_pk", "number", name="case_number"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64), index=True)
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    original_values: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    problems: Mapped[list[Any]] = mapped_column(JSON, default=list)
    warnings: Mapped[list[Any]] = mapped_column(JSON, default=list)
    source_file: Mapped[str] = mapped_column(Text, default="")
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    imported_by: Mapped[str] = mapped_column(String(200), default="")


class ImageBlob(Base):
    """Image bytes by SHA-256; ``data`` is NULL when the bytes live in the folder image store."""

    __tablename__ = "image_blobs"
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    media_type: Mapped[str] = mapped_column(String(50))
    data: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class CaseImage(Base):
    __tablename__ = "case_images"
    __table_args__ = (UniqueConstraint("revision_id", "draft_path", name="revision_path"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    revision_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("case_revisions.id"), index=True)
    draft_path: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(ForeignKey("image_blobs.sha256"))
    media_type: Mapped[str] = mapped_column(String(50))
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    frames: Mapped[int] = mapped_column(Integer, default=1)
    figures: Mapped[list[Any]] = mapped_column(JSON, default=list)
    name: Mapped[str | None] = mapped_column(Text, nullable=True)
    caption: Mapped[str | None] = mapped_column(Text, nullable=True)
    attribution: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    removed: Mapped[list[Any]] = mapped_column(JSON, default=list)
    dicom_header: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Annotation(Base):
    """One annotator's labels on one case (a flat label map, see domain.labels)."""

    __tablename__ = "annotations"
    __table_args__ = (
        UniqueConstraint("case_pk", "annotator_id", name="case_annotator"),
        CheckConstraint(_in("state", ANNOTATION_STATES), name="state"),
    )
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), index=True)
    annotator_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    revision_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("case_revisions.id"))
    state: Mapped[str] = mapped_column(String(20), default="assigned")
    labels: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The labels as submitted: agreement is computed on these, before adjudication.
    submitted_labels: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    needs_recheck: Mapped[bool] = mapped_column(default=False)
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    __mapper_args__ = {"version_id_col": version}


class Adjudication(Base):
    """A senior's decision on one conflicting item (meta-review), with its reason."""

    __tablename__ = "adjudications"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), index=True)
    key: Mapped[str] = mapped_column(String(300))
    value: Mapped[Any] = mapped_column(JSON, nullable=True)
    reason_code: Mapped[str] = mapped_column(String(50))
    reason_text: Mapped[str] = mapped_column(Text, default="")
    adjudicator: Mapped[str] = mapped_column(String(200))
    decided_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    superseded: Mapped[bool] = mapped_column(default=False)


class HistoryEntry(Base):
    """Append-only record of every change: who, when, what (database triggers refuse edits)."""

    __tablename__ = "history"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(200))
    action: Mapped[str] = mapped_column(String(50))
    case_pk: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True, index=True)
    annotation_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True, index=True)
    key: Mapped[str | None] = mapped_column(String(300), nullable=True)
    before: Mapped[Any] = mapped_column(JSON, nullable=True)
    after: Mapped[Any] = mapped_column(JSON, nullable=True)
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class SyncBundle(Base):
    """A work bundle the curator wrote for one annotator (for the round-trip view)."""

    __tablename__ = "sync_bundles"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    annotator_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    created_by: Mapped[str] = mapped_column(String(200))
    case_ids: Mapped[list[Any]] = mapped_column(JSON, default=list)


class SyncPackage(Base):
    """An annotation package imported at the curator: makes re-imports change nothing.

    ``source_id`` names the annotator's offline project (one per unbundle); ``sequence``
    numbers its packages, so an older package after a newer one is recognised.
    """

    __tablename__ = "sync_packages"
    __table_args__ = (CheckConstraint("sequence >= 1", name="sequence"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    source_id: Mapped[uuid.UUID] = mapped_column(Uuid, index=True)
    sequence: Mapped[int] = mapped_column(Integer)
    bundle_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    annotator_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    imported_by: Mapped[str] = mapped_column(String(200))
    checksum: Mapped[str] = mapped_column(String(64))
    outcome: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class ReviewRecord(Base):
    """A case's meta-review: what the last conflict detection saw and who adjudicates it.

    ``fingerprint`` hashes the draft revision and the submitted labels the detection read, so
    a case that comes back to review with other labels is detected again.
    """

    __tablename__ = "review_records"
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    detected_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    adjudicator: Mapped[str | None] = mapped_column(String(200), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    __mapper_args__ = {"version_id_col": version}


class ReviewerLetter(Base):
    """The anonymous letter (A, B, C, ...) of one annotator on one case, shuffled once."""

    __tablename__ = "reviewer_letters"
    __table_args__ = (UniqueConstraint("case_pk", "letter", name="case_letter"),)
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    annotator_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), primary_key=True)
    letter: Mapped[str] = mapped_column(String(2))
    assigned_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class DetectedItem(Base):
    """One item found when a case entered review: a conflict, or an auto-resolution.

    ``by_letter`` maps reviewer letters to the values they submitted; detections of an older
    round are kept, marked ``superseded``.
    """

    __tablename__ = "detected_items"
    __table_args__ = (CheckConstraint(_in("kind", ("conflict", "auto_resolved")), name="kind"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), index=True)
    key: Mapped[str] = mapped_column(String(300))
    family: Mapped[str] = mapped_column(String(30))
    kind: Mapped[str] = mapped_column(String(20))
    disagreement: Mapped[str | None] = mapped_column(String(80), nullable=True)
    by_letter: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    fingerprint: Mapped[str] = mapped_column(String(64))
    detected_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    superseded: Mapped[bool] = mapped_column(default=False)


class JudgedRun(Base):
    """A scoring-core run imported for human reference scoring (one benchmark_full.json).

    ``run_hash`` is the SHA-256 of the file, so importing the same run again changes nothing.
    """

    __tablename__ = "judged_runs"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    run_hash: Mapped[str] = mapped_column(String(64), unique=True)
    target_model: Mapped[str] = mapped_column(String(200), index=True)
    judge_model: Mapped[str] = mapped_column(String(200), default="")
    modes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    code_version: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    missing: Mapped[list[Any]] = mapped_column(JSON, default=list)
    source_file: Mapped[str] = mapped_column(Text, default="")
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    imported_by: Mapped[str] = mapped_column(String(200), default="")


class JudgeItem(Base):
    """One (run, case) output to score; linked to the project's case when it exists."""

    __tablename__ = "judge_items"
    __table_args__ = (UniqueConstraint("run_id", "case_id", name="run_case"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("judged_runs.id"), index=True)
    case_id: Mapped[str] = mapped_column(String(200))
    case_pk: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("cases.id"), nullable=True)
    position: Mapped[int] = mapped_column(Integer)  # blind name: "output 3 of 12"
    case_payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    model_payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class JudgeModeScore(Base):
    """One judge mode's scores of one item (a flat sheet, see judging.sheet) and reasons."""

    __tablename__ = "judge_mode_scores"
    item_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("judge_items.id"), primary_key=True)
    mode: Mapped[str] = mapped_column(String(50), primary_key=True)
    scores: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    reasons: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class PhysicianScore(Base):
    """One physician's scores of one item; a row is the assignment, ``submitted_at`` the end."""

    __tablename__ = "physician_scores"
    __table_args__ = (UniqueConstraint("item_id", "scorer_id", name="item_scorer"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    item_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("judge_items.id"), index=True)
    scorer_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    scores: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    source: Mapped[str] = mapped_column(String(20), default="page")
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    __mapper_args__ = {"version_id_col": version}


class JudgeAdjudication(Base):
    """A senior's value for one conflicting key of one item: the human reference."""

    __tablename__ = "judge_adjudications"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    item_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("judge_items.id"), index=True)
    key: Mapped[str] = mapped_column(String(300))
    value: Mapped[Any] = mapped_column(JSON, nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    adjudicator: Mapped[str] = mapped_column(String(200))
    decided_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    superseded: Mapped[bool] = mapped_column(default=False)


SME_VERDICT_STATES = ("assigned", "in_progress", "submitted")


class SmeBenchmark(Base):
    """One benchmark specification (seed 001), its current content and version.

    A changed re-import bumps ``version``; each version is also in the history.
    """

    __tablename__ = "sme_benchmarks"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    code: Mapped[str] = mapped_column(String(100), unique=True)
    parent_rubric: Mapped[str] = mapped_column(String(100), index=True)
    evaluator_type: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer, default=1)
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    content_hash: Mapped[str] = mapped_column(String(64))
    source_file: Mapped[str] = mapped_column(Text, default="")
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    imported_by: Mapped[str] = mapped_column(String(200), default="")


class SmeItem(Base):
    """One system output to review: the test case, its ground truth and the output."""

    __tablename__ = "sme_items"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    item_id: Mapped[str] = mapped_column(String(200), unique=True)
    case_ref: Mapped[str | None] = mapped_column(String(200), nullable=True)
    position: Mapped[int] = mapped_column(Integer)
    test_case: Mapped[Any] = mapped_column(JSON)
    ground_truth: Mapped[Any] = mapped_column(JSON, nullable=True)
    output: Mapped[Any] = mapped_column(JSON)
    system: Mapped[str] = mapped_column(String(200), default="")  # never shown to an SME
    content_hash: Mapped[str] = mapped_column(String(64))
    source_file: Mapped[str] = mapped_column(Text, default="")
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    imported_by: Mapped[str] = mapped_column(String(200), default="")


class SmeTask(Base):
    """One item reviewed against one benchmark; ``automated`` is the code/LLM verdict."""

    __tablename__ = "sme_tasks"
    __table_args__ = (UniqueConstraint("item_pk", "benchmark_id", name="item_benchmark"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    item_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("sme_items.id"), index=True)
    benchmark_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sme_benchmarks.id"), index=True)
    automated: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class SmeVerdict(Base):
    """One SME's verdict on one task; the row is the assignment (see sme.verdict)."""

    __tablename__ = "sme_verdicts"
    __table_args__ = (
        UniqueConstraint("task_id", "reviewer_id", name="task_reviewer"),
        CheckConstraint(_in("state", SME_VERDICT_STATES), name="state"),
    )
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    task_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sme_tasks.id"), index=True)
    reviewer_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    state: Mapped[str] = mapped_column(String(20), default="assigned")
    fields: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    submitted: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    needs_recheck: Mapped[bool] = mapped_column(default=False)
    benchmark_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    __mapper_args__ = {"version_id_col": version}


class SmeAdjudication(Base):
    """A senior's value for one conflicting field of one task, with the required reason."""

    __tablename__ = "sme_adjudications"
    __table_args__ = (CheckConstraint("length(reason) > 0", name="reason"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    task_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sme_tasks.id"), index=True)
    key: Mapped[str] = mapped_column(String(50))
    value: Mapped[Any] = mapped_column(JSON, nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    adjudicator: Mapped[str] = mapped_column(String(200))
    decided_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    superseded: Mapped[bool] = mapped_column(default=False)


class ImageTextCheck(Base):
    """Whether an image's pixels may carry burned-in text, by the SHA-256 of the bytes
    checked: the boxes found, their confidences and why it is flagged, never the text read."""

    __tablename__ = "image_text_checks"
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    flagged: Mapped[bool] = mapped_column(default=False)
    reasons: Mapped[list[Any]] = mapped_column(JSON, default=list)
    boxes: Mapped[list[Any]] = mapped_column(JSON, default=list)  # {frame, box, confidence}
    checker: Mapped[str] = mapped_column(String(100))  # e.g. "tesseract 5.3.0"
    checked_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ImageReview(Base):
    """A curator's decision on a flagged image, keyed by the hash of the bytes imported
    (the draft original's, de-identified): boxes burned in, or no patient data there."""

    __tablename__ = "image_reviews"
    __table_args__ = (CheckConstraint(_in("outcome", ("redacted", "no_phi")), name="outcome"),)
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    outcome: Mapped[str] = mapped_column(String(20))
    stored_sha256: Mapped[str] = mapped_column(String(64), index=True)  # what is kept now
    boxes: Mapped[list[Any]] = mapped_column(JSON, default=list)  # {frame, box} burned in
    reason: Mapped[str] = mapped_column(Text, default="")
    reviewed_by: Mapped[str] = mapped_column(String(200))
    reviewed_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
