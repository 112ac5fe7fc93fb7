"""Readers for draft case files: JSON cases, their images, de-identification.

The entry point is :func:`read_case_sources`; the result types live in
:mod:`annotator.ingest.results`.
"""

from __future__ import annotations

from annotator.ingest.reader import read_case_sources
from annotator.ingest.results import (
    CandidateImage,
    CaseCandidate,
    DuplicateCase,
    IngestResult,
    Rejection,
)

__all__ = [
    "CandidateImage",
    "CaseCandidate",
    "DuplicateCase",
    "IngestResult",
    "Rejection",
    "read_case_sources",
]
