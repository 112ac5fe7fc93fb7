"""The basis of a project's agreement report: submitted labels per case, and what is left out.

Plain data, no database: the service loads :class:`CaseRecord` rows from the store and
:func:`build_basis` applies the rules below, so the rules are tested (and benchmarked)
without a project.

Rules, stated in every report:
- labels are the maps as *submitted* (``Annotation.submitted_labels``), before adjudication;
- a case contributes when it is in review or green-lit with at least two submitted
  annotations; excluded cases and cases still being annotated are left out, with the reason;
- exam-level units only cover exams the scoring core uses: future follow-ups (numeric
  ``time_past < 0``) and non-imaging exams are left out, each listed with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from annotator.domain.states import CaseState
from annotator.domain.vocabulary import is_follow_up, is_non_imaging

MIN_ANNOTATIONS = 2
REVIEWED_STATES = (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value)


@dataclass(frozen=True)
class Exam:
    """One exam of a case; ``used`` when the scoring core uses it for importance and order."""

    figure: str
    used: bool = True
    why_unused: str = ""


@dataclass(frozen=True)
class Submission:
    """One annotator's submitted label map on one case (``annotator`` is an opaque key)."""

    annotator: str
    labels: Mapping[str, Any]
    submitted_at: datetime | None = None


@dataclass(frozen=True)
class CaseRecord:
    """A case as loaded from the store: the raw input of :func:`build_basis`."""

    case_id: str
    state: str
    content: Mapping[str, Any]
    submissions: Sequence[Submission]
    assigned: Sequence[str] = ()  # annotator keys of every active annotation
    state_reason: str = ""


@dataclass(frozen=True)
class CaseBasis:
    """A contributing case: its exams and the submitted label maps keyed by annotator."""

    case_id: str
    exams: tuple[Exam, ...]
    labels: Mapping[str, Mapping[str, Any]]
    submitted_at: Mapping[str, datetime | None] = field(default_factory=dict)
    state: str = CaseState.IN_REVIEW.value

    @property
    def used_figures(self) -> list[str]:
        """Figures of the exams the scoring core uses, in draft order."""
        return [e.figure for e in self.exams if e.used]

    @property
    def entered_review(self) -> datetime | None:
        """When the last of its annotations was submitted (None when no time is known)."""
        times = [t for t in self.submitted_at.values() if t is not None]
        return max(times) if times else None


@dataclass(frozen=True)
class Exclusion:
    """A case (``figure`` empty) or an exam left out of the agreement figures, and why."""

    case_id: str
    reason: str  # case_excluded | still_annotating | incomplete | follow_up | non_imaging
    detail: str
    figure: str = ""


@dataclass(frozen=True)
class AnnotatorProgress:
    """One annotator's work in the whole project (not only the contributing cases)."""

    key: str
    name: str = ""
    assigned: int = 0
    submitted: int = 0


@dataclass(frozen=True)
class ProjectBasis:
    """Everything the agreement figures are computed from."""

    cases: tuple[CaseBasis, ...]
    exclusions: tuple[Exclusion, ...] = ()
    annotators: tuple[AnnotatorProgress, ...] = ()
    cases_total: int = 0

    @property
    def annotator_keys(self) -> list[str]:
        """Every annotator key, sorted: column order of every ratings matrix."""
        keys = {a.key for a in self.annotators}
        keys.update(k for case in self.cases for k in case.labels)
        return sorted(keys)


def exams_of(content: Mapping[str, Any]) -> tuple[Exam, ...]:
    """The case's exams with whether the scoring core uses them (follow-ups and
    non-imaging exams leave the route metrics, ``release-contract.md``)."""
    exams = []
    for raw in content.get("imaging_examinations") or []:
        if not isinstance(raw, Mapping) or "figure" not in raw:
            continue
        meta = raw.get("meta_info") if isinstance(raw.get("meta_info"), Mapping) else {}
        assert isinstance(meta, Mapping)
        if is_follow_up(meta.get("time_past")):
            why = f"future follow-up (time_past {meta.get('time_past')})"
        elif is_non_imaging(dict(meta)):
            why = "non-imaging exam"
        else:
            why = ""
        exams.append(Exam(str(raw["figure"]), not why, why))
    return tuple(exams)


def _case_exclusion(record: CaseRecord) -> Exclusion | None:
    n = len(record.submissions)
    if record.state == CaseState.EXCLUDED.value:
        why = f"case excluded ({record.state_reason})" if record.state_reason else "case excluded"
        return Exclusion(record.case_id, "case_excluded", why)
    if record.state not in REVIEWED_STATES:
        assigned = max(len(record.assigned), n)
        return Exclusion(
            record.case_id, "still_annotating", f"still annotating ({n} of {assigned} submitted)"
        )
    if n < MIN_ANNOTATIONS:
        return Exclusion(
            record.case_id, "incomplete", f"incomplete ({n} submitted annotation, 2 needed)"
        )
    return None


def build_basis(
    records: Sequence[CaseRecord], annotators: Sequence[AnnotatorProgress] = ()
) -> ProjectBasis:
    """Apply the basis rules to the loaded cases; contributing cases sorted by case id."""
    cases: list[CaseBasis] = []
    exclusions: list[Exclusion] = []
    for record in sorted(records, key=lambda r: r.case_id):
        excluded = _case_exclusion(record)
        if excluded is not None:
            exclusions.append(excluded)
            continue
        exams = exams_of(record.content)
        for exam in exams:
            if not exam.used:
                reason = "follow_up" if exam.why_unused.startswith("future") else "non_imaging"
                exclusions.append(Exclusion(record.case_id, reason, exam.why_unused, exam.figure))
        subs = sorted(record.submissions, key=lambda s: s.annotator)
        cases.append(
            CaseBasis(
                record.case_id,
                exams,
                {s.annotator: dict(s.labels) for s in subs},
                {s.annotator: s.submitted_at for s in subs},
                record.state,
            )
        )
    return ProjectBasis(tuple(cases), tuple(exclusions), tuple(annotators), len(records))
