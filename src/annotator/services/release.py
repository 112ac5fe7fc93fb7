"""Collecting a release from the project: released, excluded and held-back cases.

Only green-lit cases whose final content still passes the release checks (the same review
that decides the green light) are released; everything else is listed with the reason it is
held back. The export package writes what this returns (:mod:`annotator.export.release_input`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.labels import split_key
from annotator.domain.states import CaseState
from annotator.export.errors import ExportError
from annotator.export.release_input import (
    HeldBack,
    ReleasedCase,
    ReleaseInput,
    SourceImage,
    pseudonym,
)
from annotator.export.settings import ORIGINAL_HISTORY_KEY
from annotator.services.pixel_status import image_statuses
from annotator.services.review.base import CaseReview, review_of
from annotator.services.review.bulk import Decided, QueueRows, load_rows
from annotator.store.chain import head
from annotator.store.project import Project
from annotator.store.schema import Case, CaseImage, CaseRevision, User
from annotator.store.settings import CARD, DEID_SEED

_BATCH = 500  # cases read in bulk at once
COMMENT_FAMILIES = ("comment", "exam_comment", "red_flag", "demography_note", "rubric_comment")


def collect_release(
    project: Project, *, include_comments: bool = False, only: Collection[str] | None = None,
) -> ReleaseInput:
    """Read every case of the project (those named in ``only``) and sort it into released,
    excluded and held back.

    One read transaction, the cases' rows read in bulk 500 cases at a time (the queue's
    reads, :mod:`annotator.services.review.bulk`): the reads do not grow with the project,
    and not with the cases but with their number of batches."""
    seed = project.setting(DEID_SEED)
    # The unredacted source text ships only when the curator's card setting says so.
    ship_history = project.setting(CARD, "original_history") == "shipped"
    released: list[ReleasedCase] = []
    excluded: list[HeldBack] = []
    held: list[HeldBack] = []
    reviewers: set[str] = set()
    adjudicators: set[str] = set()
    annotated: set[str] = set()
    unresolved: list[str] = []  # the released images the pixel check still holds back
    with project.read() as session:
        names = {str(u.id): u.name for u in session.scalars(select(User))}
        rows = sorted(_cases(session, only), key=lambda c: c.case_id)
        for start in range(0, len(rows), _BATCH):
            batch = rows[start:start + _BATCH]
            bulk = load_rows(session, batch, [c.id for c in batch], with_reviews=True,
                             heal=False)
            annotated.update(c.case_id for c in batch if bulk.submitted.get(c.id))
            ready: list[tuple[Case, CaseReview]] = []
            for case in batch:
                decided = bulk.decided.get(case.id, {})
                if case.state == CaseState.EXCLUDED.value:
                    excluded.append(HeldBack(case.case_id, case.state,
                                             case.state_reason or "excluded",
                                             _discard_code(decided)))
                    continue
                revision = case.current_revision_id
                review = review_of(
                    case, bulk.contents.get(revision, {}) if revision else {},
                    bulk.submitted.get(case.id, {}),
                    {key: d.value for key, d in decided.items()},
                    bulk.hashes.get(revision, {}) if revision else {})
                if case.state != CaseState.GREEN_LIT.value:
                    held.append(HeldBack(case.case_id, case.state, _why_not_ready(review)))
                elif review.blockers:
                    held.append(HeldBack(case.case_id, case.state, "green-lit, but now: "
                                         + "; ".join(review.blockers)))
                else:
                    ready.append((case, review))
            for record in _released(session, ready, bulk, names, seed, include_comments,
                                    unresolved):
                if not ship_history:
                    record.release = {k: v for k, v in record.release.items()
                                      if k != ORIGINAL_HISTORY_KEY}
                provenance = record.provenance
                reviewers.update(provenance["reviewers"])
                adjudicators.update(a["adjudicator"] for a in provenance["adjudications"])
                if provenance["green_light"]["by"]:
                    adjudicators.add(provenance["green_light"]["by"])
                released.append(record)
        # Read last: the history up to this head covers every edit the release was made of.
        history_head = head(session)[1]

    def load(shas: Sequence[str]) -> dict[str, bytes]:
        if project.images.folder is not None:  # a file each: no transaction to open
            return project.images.get_many(None, shas)
        with project.read() as session:  # a case's images in one transaction and query
            return project.images.get_many(session, shas)

    return ReleaseInput(
        cases=released, excluded=excluded, held_back=held, project_cases=len(rows),
        annotated_candidates=len(annotated | {c.case_id for c in released}
                                 | {c.case_id for c in excluded}),
        user_names=sorted(set(names.values())), annotators=len(reviewers),
        adjudicators=len(adjudicators), image_bytes=load,
        renders_dir=project.folder / "cache" / "renders" if project.folder else None,
        history_head=history_head,
        verdicts_dir=project.folder / "cache" / "text-verdicts" if project.folder else None,
        unresolved_images=unresolved,
    )


def _cases(session: Session, only: Collection[str] | None) -> list[Case]:
    if only is None:
        return list(session.scalars(select(Case)))
    wanted = sorted(set(only))
    found: list[Case] = []
    for start in range(0, len(wanted), 500):
        found += session.scalars(select(Case).where(Case.case_id.in_(wanted[start:start + 500])))
    missing = sorted(set(wanted) - {c.case_id for c in found})
    if missing:
        raise ExportError(f"{len(missing)} named case(s) are not in the project: "
                          + ", ".join(missing[:10]))
    return found


def _why_not_ready(review: CaseReview) -> str:
    if review.state == CaseState.ANNOTATING.value:
        return "still being annotated"
    if review.final.open:
        return f"in review: {len(review.final.open)} open conflict(s)"
    return "in review, not green-lit yet"


def _discard_code(decided: dict[str, Decided]) -> str:
    row = decided.get("discard")
    if row is not None and isinstance(row.value, dict) and row.value.get("reason_code"):
        return str(row.value["reason_code"])
    return "excluded"


def _released(
    session: Session, ready: list[tuple[Case, CaseReview]], bulk: QueueRows,
    names: dict[str, str], seed: str, comments: bool, unresolved: list[str],
) -> list[ReleasedCase]:
    """The release records of cases ready to ship, their rows read once for all of them;
    their images the pixel check holds back are added to ``unresolved`` (described)."""
    if not ready:
        return []
    revision_ids = [case.current_revision_id for case, _review in ready]
    revisions = {r.id: r for r in session.execute(
        select(CaseRevision.id, CaseRevision.number, CaseRevision.content_hash,
               CaseRevision.original_values).where(CaseRevision.id.in_(revision_ids)))}
    statuses = image_statuses(session, [case.case_id for case, _review in ready])
    unresolved += [s.describe() for s in statuses if s.unresolved]
    reviewed = {(s.case_id, s.draft_path) for s in statuses if s.status in ("redacted", "no_phi")}
    images: dict[Any, list[CaseImage]] = {}
    for image in session.scalars(select(CaseImage).where(CaseImage.revision_id.in_(
            revision_ids))):
        images.setdefault(image.revision_id, []).append(image)
    out = []
    for case, review in ready:
        revision = revisions[case.current_revision_id]
        shipped = [
            SourceImage(i.draft_path, i.sha256, i.media_type, tuple(str(f) for f in i.figures),
                        i.name, i.caption, dict(i.attribution or {}),
                        text_reviewed=(case.case_id, i.draft_path) in reviewed)
            for i in images.get(revision.id, [])
        ]
        submitted = {names.get(rater, rater): labels
                     for rater, labels in bulk.submitted.get(case.id, {}).items()}
        decisions = sorted(bulk.decided.get(case.id, {}).values(), key=lambda row: row.key)
        provenance: dict[str, Any] = {
            "revision": {"number": revision.number, "content_hash": revision.content_hash},
            "reviewers": sorted(pseudonym(seed, n) for n in submitted),
            "auto_resolved": [item.key for item in review.final.auto_resolved],
            "adjudications": [_decision(row, seed, comments) for row in decisions],
            "green_light": {"state": case.state, "by": pseudonym(seed, case.green_lit_by)
                            if case.green_lit_by else None},
            "import_normalised": dict(sorted((revision.original_values or {}).items())),
        }
        if comments:
            provenance["comments"] = _comments(submitted, seed)
        order = {path: i for i, path in enumerate(_paths_in_order(review.release))}
        shipped.sort(key=lambda img: (order.get(img.draft_path, len(order)), img.draft_path))
        out.append(ReleasedCase(review.case_id, review.release, shipped, provenance))
    return out


def _decision(row: Decided, seed: str, comments: bool) -> dict[str, Any]:
    out = {"key": row.key, "value": row.value, "reason_code": row.reason_code,
           "adjudicator": pseudonym(seed, row.adjudicator)}
    if comments and row.reason_text:
        out["reason_text"] = row.reason_text
    return out


def _comments(submitted: dict[str, dict[str, Any]], seed: str) -> list[dict[str, str]]:
    found = [
        {"reviewer": pseudonym(seed, name), "key": key, "text": value}
        for name, labels in submitted.items()
        for key, value in labels.items()
        if split_key(key)[0] in COMMENT_FAMILIES and isinstance(value, str) and value.strip()
    ]
    return sorted(found, key=lambda c: (c["key"], c["reviewer"], c["text"]))


def _paths_in_order(case: dict[str, Any]) -> list[str]:
    """Image paths as the case cites them: exams first, then the ``images`` index."""
    paths: list[str] = []
    for exam in case.get("imaging_examinations") or []:
        if isinstance(exam, dict):
            paths += [p for p in exam.get("image_paths") or [] if isinstance(p, str)]
    for entry in case.get("images") or []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            paths.append(entry["path"])
    return list(dict.fromkeys(paths))
