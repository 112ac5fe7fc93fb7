"""The project's tables (SQLAlchemy 2 declarative). The only place that defines storage.

Keys are UUIDs so that work merged from several laptops never collides; rows that several
people may edit carry a ``version`` used for optimistic locking. States are strings guarded by
CHECK constraints (not PostgreSQL enums) so that migrations stay simple on both back ends.
"""

import uuid
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, synonym

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


class ProjectCount(Base):
    """One counter kept by the writes (``status``, the desk): see :mod:`annotator.store.counts`."""

    __tablename__ = "project_counts"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    n: Mapped[int] = mapped_column(BigInteger, default=0)


class User(Base):
    __tablename__ = "users"
    # A unique index, as migration 0013_rls makes it (a plain ADD COLUMN keeps SQLite's
    # foreign keys to users intact; a unique constraint would need a batch copy).
    __table_args__ = (Index("uq_users_db_role", "db_role", unique=True),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    # Salted scrypt (domain/passwords.py); None: no login set (SQLite projects never need one).
    # Deferred: on a walled PostgreSQL store (0013_rls) app roles cannot read the column.
    password_hash: Mapped[str | None] = mapped_column(String(300), nullable=True, deferred=True)
    # The person's PostgreSQL login role on a walled team store (None on SQLite).
    db_role: Mapped[str | None] = mapped_column(String(63), nullable=True)
    roles: Mapped[list["UserRole"]] = relationship(
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
    user: Mapped["User"] = relationship(back_populates="roles")


class Case(Base):
    __tablename__ = "cases"
    __table_args__ = (CheckConstraint(_in("state", CASE_STATES), name="state"),
                      # The review queue's green-lit and excluded cases, a page at a time.
                      Index("ix_cases_state_case_id", "state", "case_id"),
                      Index("ix_cases_current_revision_id", "current_revision_id"))
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


class _Imported:
    """Rows read from a file: which file, when and by whom (their provenance)."""

    source_file: Mapped[str] = mapped_column(Text, default="")
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    imported_by: Mapped[str] = mapped_column(String(200), default="")


def _exam_count(context: Any) -> int:
    found = (context.get_current_parameters().get("content") or {}).get("imaging_examinations")
    return len(found) if isinstance(found, list) else 0


class CaseRevision(_Imported, Base):
    """One imported version of a case's draft, identified by its content hash."""

    __tablename__ = "case_revisions"
    __table_args__ = (UniqueConstraint("case_pk", "number", name="case_number"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"))
    number: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64), index=True)
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The draft's exam count, kept beside it so counting exams never reads every draft.
    exams: Mapped[int | None] = mapped_column(Integer, nullable=True, default=_exam_count)
    original_values: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    problems: Mapped[list[Any]] = mapped_column(JSON, default=list)
    warnings: Mapped[list[Any]] = mapped_column(JSON, default=list)


class ImageBlob(Base):
    """Image bytes by SHA-256; ``data`` is NULL when the bytes live in the folder image store."""

    __tablename__ = "image_blobs"
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    media_type: Mapped[str] = mapped_column(String(50))
    data: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class ImageNotes(Base):
    """What an image carries besides its pixels, kept once for every image that shares it:
    its attribution (source, author, licence), what de-identification removed and the DICOM
    header shown beside it. A source's licence and a scanner's header repeat across thousands
    of images, so ``case_images`` names them by ``digest`` (store/image_notes.py) instead of
    holding a copy each (issue 27: a quarter of the row's bytes at 100,000 cases)."""

    __tablename__ = "image_notes"
    digest: Mapped[str] = mapped_column(String(32), primary_key=True)
    attribution: Mapped[dict[str, Any]] = mapped_column(JSON)
    removed: Mapped[list[Any]] = mapped_column(JSON)
    dicom_header: Mapped[dict[str, Any]] = mapped_column(JSON)


class CaseImage(Base):
    __tablename__ = "case_images"
    # The unique (revision, path) and (revision, media type) indexes both begin with the
    # revision: a third index on it alone would only take space.
    __table_args__ = (UniqueConstraint("revision_id", "draft_path", name="revision_path"),
                      Index("ix_case_images_revision_media", "revision_id", "media_type"))
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    revision_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("case_revisions.id"))
    draft_path: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(ForeignKey("image_blobs.sha256"))
    media_type: Mapped[str] = mapped_column(String(50))
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    frames: Mapped[int] = mapped_column(Integer, default=1)
    figures: Mapped[list[Any]] = mapped_column(JSON, default=list)
    name: Mapped[str | None] = mapped_column(Text, nullable=True)
    caption: Mapped[str | None] = mapped_column(Text, nullable=True)
    notes_digest: Mapped[str] = mapped_column(ForeignKey("image_notes.digest"))
    notes: Mapped[ImageNotes] = relationship(lazy="joined", innerjoin=True)

    @property
    def attribution(self) -> dict[str, Any]:
        return self.notes.attribution

    @property
    def removed(self) -> list[Any]:
        return self.notes.removed

    @property
    def dicom_header(self) -> dict[str, Any]:
        return self.notes.dicom_header


class HistoryEntry(Base):
    """Append-only record of every change: who, when, what (database triggers refuse edits)."""

    __tablename__ = "history"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    # No index on ``at`` or ``annotation_id``: history is read by case (and the chain by
    # seq); an annotation's entries are found through its case. Together they were a third
    # of the history's bytes.
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(200))
    action: Mapped[str] = mapped_column(String(50))
    case_pk: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True, index=True)
    annotation_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    key: Mapped[str | None] = mapped_column(String(300), nullable=True)
    before: Mapped[Any] = mapped_column(JSON, nullable=True)
    after: Mapped[Any] = mapped_column(JSON, nullable=True)
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The hash chain (store/chain.py): the row's place in the database's order, the hash of
    # the row before it and its own hash over both. Set at insert, never changed.
    seq: Mapped[int | None] = mapped_column(BigInteger, nullable=True, unique=True, index=True)
    prev_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    row_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ChainHead(Base):
    """The history chain's last row (one row, id 1): locked by every writer of history, and
    the reference that reveals rows cut from the end of the chain."""

    __tablename__ = "history_chain"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(64))
    # The hash before the last advance: what PostgreSQL's one-statement advance returns
    # (store/chain.py); None after an advance in two statements.
    prev_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


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


class JudgedRun(_Imported, Base):
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


SME_VERDICT_STATES = ("assigned", "in_progress", "submitted")


class SmeBenchmark(_Imported, Base):
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


class SmeItem(_Imported, Base):
    """One system output to review: the test case, its ground truth and the output."""

    __tablename__ = "sme_items"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    item_id: Mapped[str] = mapped_column(String(200), unique=True)
    case_ref: Mapped[str | None] = mapped_column(String(200), nullable=True)
    position: Mapped[int] = mapped_column(Integer)
    test_case: Mapped[Any] = mapped_column(JSON)
    ground_truth: Mapped[Any] = mapped_column(JSON, nullable=True)
    output: Mapped[Any] = mapped_column(JSON)
    # Never shown to an SME; on a walled store hidden from annotators' roles (deferred).
    system: Mapped[str] = mapped_column(String(200), default="", deferred=True)
    run: Mapped[int | None] = mapped_column(Integer, nullable=True)  # K runs of one output
    content_hash: Mapped[str] = mapped_column(String(64))


class SmeTask(Base):
    """One item reviewed against one benchmark; ``automated`` is the code/LLM verdict."""

    __tablename__ = "sme_tasks"
    __table_args__ = (UniqueConstraint("item_pk", "benchmark_id", name="item_benchmark"),)
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    item_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("sme_items.id"))
    benchmark_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sme_benchmarks.id"), index=True)
    # Hidden from annotators' roles on a walled store until they submit (deferred; see
    # store.db_roles.revealed_automated).
    automated: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, deferred=True)


# --- Rated work: one family of tables for the three kinds of rated work (issue 21) ---------
#
# A case's labels, an SME's verdict on a task and a physician's scores of a judged output are
# one concept: a rater's fields on one item, set against a version, submitted, blind to the
# other raters until then, adjudicated field by field. They share one table (``rated_work``)
# and their adjudications another (``decisions``), by single-table inheritance: each kind is a
# mapped subclass that adds its item reference and keeps its own attribute names as synonyms.

RATING_KINDS = ("case", "sme", "judge")
RATED_WORK_STATES = tuple(dict.fromkeys((*ANNOTATION_STATES, *SME_VERDICT_STATES)))


class RatedWork(Base):
    """One rater's work on one item of some kind; the row is the assignment."""

    __tablename__ = "rated_work"
    __table_args__ = (
        CheckConstraint(_in("kind", RATING_KINDS), name="kind"),
        CheckConstraint(_in("state", RATED_WORK_STATES), name="state"),
        Index("ix_rated_work_kind_state", "kind", "state"),
        # The desk's stuck work: unfinished rows by their last edit, never every row.
        Index("ix_rated_work_state_updated_at", "state", "updated_at"),
        # A rater's list and its repeats: without these SQLite searches by kind alone, every
        # rater's rows of that kind, so the case list grew with the project (issue 27).
        Index("ix_rated_work_rater_kind", "rater_id", "kind"),
        # Only the repeats (partial): as an index of every row, SQLite took it for the
        # non-repeats (``repeat_of IS NULL``, every first rating) over the case's index when
        # a read named a few cases, and read every rating (150 ms at 100,000 cases; 0029).
        Index("ix_rated_work_repeats", "repeat_of", "kind",
              sqlite_where=text("repeat_of IS NOT NULL"),
              postgresql_where=text("repeat_of IS NOT NULL")),
        # The rater, repeat_of, case_pk, task_id and item_id columns need no index of their
        # own: each begins one above or one of the unique constraints (0026_lean_store).
    )
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    kind: Mapped[str] = mapped_column(String(10))
    rater_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
    state: Mapped[str] = mapped_column(String(20), default="assigned")
    values: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The values as submitted: agreement and conflicts are computed on these.
    submitted: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    needs_recheck: Mapped[bool] = mapped_column(default=False)
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1)
    # A hidden repeat (issue 26): the rater's own earlier row served again, as its own row.
    # ``repeat_no`` is 0 for the original and 1, 2, ... for repeats; a repeat is hidden from
    # every query unless it asks for repeats (store.repeats), so it never counts in
    # agreement, conflicts, adjudication or the release.
    repeat_of: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("rated_work.id"), nullable=True
    )
    repeat_no: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    due_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # Active seconds on the row, idle and pauses excluded (SME and judge pages; a case's
    # labels keep theirs as the ``active_seconds`` label, which bundles carry).
    active_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    __mapper_args__ = {"version_id_col": version, "polymorphic_on": kind}


class Annotation(RatedWork):
    """One annotator's labels on one case (a flat label map, see domain.labels)."""

    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), nullable=True)
    revision_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("case_revisions.id"), nullable=True
    )
    annotator_id: Mapped[uuid.UUID] = synonym("rater_id")
    labels: Mapped[dict[str, Any]] = synonym("values")
    submitted_labels: Mapped[dict[str, Any] | None] = synonym("submitted")
    __mapper_args__ = {"polymorphic_identity": "case"}


class SmeVerdict(RatedWork):
    """One SME's verdict on one task; the row is the assignment (see sme.verdict)."""

    task_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("sme_tasks.id"), nullable=True
    )
    # The benchmark version the verdict was given against.
    benchmark_version: Mapped[int] = mapped_column(Integer, nullable=True, default=1)
    reviewer_id: Mapped[uuid.UUID] = synonym("rater_id")
    fields: Mapped[dict[str, Any]] = synonym("values")
    __mapper_args__ = {"polymorphic_identity": "sme"}


class PhysicianScore(RatedWork):
    """One physician's scores of one judged output; ``submitted_at`` is the end."""

    item_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("judge_items.id"), nullable=True
    )
    source: Mapped[str] = mapped_column(String(20), nullable=True, default="page")
    scorer_id: Mapped[uuid.UUID] = synonym("rater_id")
    scores: Mapped[dict[str, Any]] = synonym("values")
    __mapper_args__ = {"polymorphic_identity": "judge"}


# One row per rater and item: NULLs (the other kinds' item columns) never collide.
for _column, _name in (
    ("case_pk", "case_rater"), ("task_id", "task_rater"), ("item_id", "item_rater")
):
    cast(Table, RatedWork.__table__).append_constraint(
        UniqueConstraint(_column, "rater_id", "repeat_no", name=_name)
    )


QUALITY_PURPOSES = ("calibration", "gold")


class QualityItem(Base):
    """An item of some kind a curator marked as a calibration or gold item, with its
    reference answer (field -> value) and the reason; ``item_ref`` is the kind's reference
    (a case id, an SME task's id, a judged output's id)."""

    __tablename__ = "quality_items"
    __table_args__ = (
        CheckConstraint(_in("kind", RATING_KINDS), name="kind"),
        CheckConstraint(_in("purpose", QUALITY_PURPOSES), name="purpose"),
        UniqueConstraint("kind", "item_ref", "purpose", name="kind_item_purpose"),
    )
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    kind: Mapped[str] = mapped_column(String(10))
    item_ref: Mapped[str] = mapped_column(String(300))
    purpose: Mapped[str] = mapped_column(String(12))
    reference: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Decision(Base):
    """A senior's value for one conflicting field of one item, with its reason (adjudication).

    Older decisions on the same field are kept, marked ``superseded``.
    """

    __tablename__ = "decisions"
    __table_args__ = (
        CheckConstraint(_in("kind", RATING_KINDS), name="kind"),
        # SME decisions always carried a reason in the database; cases' is a code plus text.
        CheckConstraint("kind <> 'sme' OR length(reason) > 0", name="reason"),
    )
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    kind: Mapped[str] = mapped_column(String(10))
    key: Mapped[str] = mapped_column(String(300))
    value: Mapped[Any] = mapped_column(JSON, nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    adjudicator: Mapped[str] = mapped_column(String(200))
    decided_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    superseded: Mapped[bool] = mapped_column(default=False)
    __mapper_args__ = {"polymorphic_on": kind}


class Adjudication(Decision):
    """A senior's decision on one conflicting item of a case (meta-review)."""

    case_pk: Mapped[uuid.UUID] = mapped_column(ForeignKey("cases.id"), nullable=True, index=True)
    reason_code: Mapped[str] = mapped_column(String(50), nullable=True)
    reason_text: Mapped[str] = synonym("reason")
    __mapper_args__ = {"polymorphic_identity": "case"}


# A kind's standing decisions (the judge's open conflicts) without the cases' many, and a
# page of cases' standing decisions, one seek per case (migration 0029); the case column is
# the case kind's own (single-table inheritance), so the index is declared after it.
Index("ix_decisions_kind_superseded_case", Decision.__table__.c.kind,
      Decision.__table__.c.superseded, Decision.__table__.c.case_pk)


class SmeAdjudication(Decision):
    """A senior's value for one conflicting field of one SME task."""

    task_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("sme_tasks.id"), nullable=True, index=True
    )
    __mapper_args__ = {"polymorphic_identity": "sme"}


class JudgeAdjudication(Decision):
    """A senior's value for one conflicting key of one judged output: the human reference."""

    item_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("judge_items.id"), nullable=True, index=True
    )
    __mapper_args__ = {"polymorphic_identity": "judge"}


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


class AgreementStats(Base):
    """A case's agreement sufficient statistics per label family (issue 27), with a hash of
    what they were computed from (the case's state, draft and active annotations); the
    writers mark a case stale (``AgreementStale``) and the next call recomputes it. The row
    with the nil ``case_pk`` holds their sum, the one with ``case_pk`` 1 the XOR of every
    case row's hash (what the cached reports are keyed by); the sum's rater pair tables are
    kept apart, in ``agreement_pair_sums``. Derived data: dropping every row
    only costs one full recomputation. No foreign key: a row outliving its (marked) case is
    subtracted from the sum."""

    __tablename__ = "agreement_stats"
    case_pk: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    key: Mapped[str] = mapped_column(String(64))
    stats: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class AgreementPairSum(Base):
    """One rater pair's summed confusion table of one label family (issue 27): the sum of the
    ``pairs`` tables of every case row of ``agreement_stats``, kept apart from the sum row so
    that one more submission rewrites the few pairs it touches, not every pair of the
    project (300 per family at the bench's 100,000 cases). ``pair`` is the two annotator
    keys joined by the unit separator, as in the case rows. Derived data, curators only."""

    __tablename__ = "agreement_pair_sums"
    family: Mapped[str] = mapped_column(String(64), primary_key=True)
    pair: Mapped[str] = mapped_column(String(200), primary_key=True)
    counts: Mapped[list[float]] = mapped_column(JSON)


class AgreementStale(Base):
    """A case whose agreement statistics are stale (issue 27): every write that changes what
    they are computed from marks the case in its own transaction (store.agreement_stale).
    The token changes with every mark, so a reader clears only a mark it has seen."""

    __tablename__ = "agreement_stale"
    case_pk: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    token: Mapped[uuid.UUID] = mapped_column(Uuid)


class QueueKey(Base):
    """A case's place in the review queue (issue 27), kept by the writes that change it
    (:mod:`annotator.store.queue_keys`): one row per case in the queue (reviewed, with a
    detection). ``grp``: 0 open conflicts, 1 ready, 2 blocked, 3 green-lit, 4 excluded;
    ``impact``: the top open conflict's (0 without); ``open_conflicts``: how many are open.
    ``stale``: a writer that could not compute the key (an annotator's connection on a walled
    store reads only their own work) marked it; the next senior read recomputes it."""

    __tablename__ = "queue_keys"
    # The queue's order under ``stale`` (the fresh keys, then the few stale ones), so the
    # first page is a range read of 50 index entries and the heading a grouped count of it.
    __table_args__ = (Index("ix_queue_keys_order", "stale", "grp", "impact", "case_id",
                            "open_conflicts"),)
    case_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("cases.id", ondelete="CASCADE"), primary_key=True)
    case_id: Mapped[str] = mapped_column(String(200))
    grp: Mapped[int] = mapped_column(Integer)
    impact: Mapped[int] = mapped_column(Integer, default=0)
    open_conflicts: Mapped[int] = mapped_column(Integer, default=0)
    stale: Mapped[bool] = mapped_column(default=False)


class QueueTotal(Base):
    """The fresh review queue keys per group (issue 27): ``cases`` and the sum of their
    ``open_conflicts``. Kept by the database itself: triggers on ``queue_keys`` (migration
    ``0032_queue_totals``) add and take away every fresh row whoever writes it (the app's
    sessions, ``annotator_queue_stale``, the bench's clone, a repair), so the queue's heading
    and the desk read five rows, not every key (100,000 cases: 60,000 keys, 10 ms)."""

    __tablename__ = "queue_totals"
    grp: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    cases: Mapped[int] = mapped_column(BigInteger, default=0)
    open_conflicts: Mapped[int] = mapped_column(BigInteger, default=0)


class SmeTotal(Base):
    """The fresh SME task keys per benchmark and state (issue 27): ``tasks``, how many of
    them have an open conflict (``conflicted``) and the sum of their ``open_conflicts``. Kept
    by the database itself, as :class:`QueueTotal` is: triggers on ``sme_task_keys``
    (migration ``0033_sme_totals``) count every writer, so the desk's SME progress and
    conflicts read a few rows, not every task."""

    __tablename__ = "sme_totals"
    benchmark_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    state: Mapped[str] = mapped_column(String(12), primary_key=True)
    tasks: Mapped[int] = mapped_column(BigInteger, default=0)
    conflicted: Mapped[int] = mapped_column(BigInteger, default=0)
    open_conflicts: Mapped[int] = mapped_column(BigInteger, default=0)


class SmeTaskKey(Base):
    """An SME task's standing, kept by the writes that change it (issue 27,
    :mod:`annotator.store.sme_keys`): the desk's SME progress and open conflicts are a grouped
    count of this table, not a reading of every verdict. ``state``: ``resolved`` (a reference
    verdict), ``undecided`` (the SMEs conflict, a field is not decided) or ``unsubmitted``;
    ``open_conflicts``: its conflicting fields no senior has decided. ``stale``: a writer that
    could not compute it (an SME's connection on a walled store reads only their own verdict)
    marked it; the next senior read recomputes it."""

    __tablename__ = "sme_task_keys"
    __table_args__ = (Index("ix_sme_task_keys_standing", "stale", "benchmark_id", "state",
                            "open_conflicts"),)
    task_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("sme_tasks.id", ondelete="CASCADE"), primary_key=True)
    benchmark_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("sme_benchmarks.id", ondelete="CASCADE"))
    state: Mapped[str] = mapped_column(String(12))
    open_conflicts: Mapped[int] = mapped_column(Integer, default=0)
    stale: Mapped[bool] = mapped_column(default=False)
