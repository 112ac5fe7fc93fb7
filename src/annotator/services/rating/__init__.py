"""Rated work on one engine: a case's labels, an SME's verdict, a physician's scores.

:mod:`.engine` holds the operations (set a field against a version, submit, blind view,
reveal, conflicts, adjudicate, undo by writing back what a set replaced, reopen, and a row's
values taken whole as another copy of the project recorded them). What each kind has
of its own lives with its feature (``review.kind``, ``sme.kind``, ``judging.kind``);
:mod:`annotator.services.kinds` names them together.
"""

from annotator.services.rating.engine import (
    FieldEdit,
    Loaded,
    RatingKind,
    Recorded,
    SetResult,
    apply_recorded,
    reopen_work,
)

__all__ = [
    "FieldEdit", "Loaded", "RatingKind", "Recorded", "SetResult", "apply_recorded", "reopen_work",
]
