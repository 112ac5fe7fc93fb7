"""The words the scoring core understands, and the spellings it silently misreads.

The DDx-TRACE request matcher normalises metadata phrases; a value outside its vocabulary
loses its meaning without any error (``release-contract.md``). This module holds that
vocabulary, the case-label spellings, and the helpers editors, checks and meta-review share.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from annotator.domain.text import clipped
from annotator.errors import AnnotatorError

CONTRAST_TERMS = ("non-contrast", "post-contrast", "with and without contrast")
MODALITY_TERMS = (
    "CT", "MRI", "CTA", "MRA", "MRV", "DSA", "X-ray", "Ultrasound", "PET/CT", "Nuclear medicine",
)
ACQUISITION_TERMS = (
    "T1", "T2", "FLAIR", "DWI/ADC", "SWI", "GRE", "STIR", "post-contrast T1", "non-contrast",
    "CTA", "spectroscopy", "perfusion", "bone window",
)
REGION_TERMS = (
    "head", "brain", "head and neck", "cervical spine", "thoracic spine", "lumbar spine",
    "lumbosacral spine", "posterior fossa", "skull base", "temporal bone", "orbits",
    "paranasal sinuses", "whole spine",
)
# Not part of the contract (the matcher reads view as free text): common spellings to offer.
VIEW_TERMS = ("axial", "coronal", "sagittal", "oblique", "MIP", "3D", "frontal", "lateral")

LABELS: dict[str, tuple[str, ...]] = {
    "difficulty": ("normal", "hard", "extreme_hard"),
    "rarity": ("common", "rare", "extreme_rare"),
    "importance": ("essential", "optional", "unnecessary"),
}
_SUGGESTIONS: dict[str, tuple[str, ...]] = {
    "contrast": CONTRAST_TERMS,
    "modality": MODALITY_TERMS,
    "acquisition": ACQUISITION_TERMS,
    "imaged_region": REGION_TERMS,
    "view": VIEW_TERMS,
    **LABELS,
}
NON_IMAGING_WORDS = (
    "clinical", "photo", "pathology", "histopathology", "microscopy", "illustration", "drawing",
    "diagram",
)


class LabelError(AnnotatorError):
    """A difficulty/rarity/importance spelling that maps to no contract value."""

    def __init__(self, kind: str, value: object) -> None:
        allowed = ", ".join(LABELS.get(kind, ()))
        super().__init__(f"{kind} {clipped(value)} is not one of {allowed}")
        self.kind = kind
        self.value = value


def _squash(value: str) -> str:
    """Lower case, NFKC, one space between words, no trailing full stop."""
    text = unicodedata.normalize("NFKC", value).strip().lower().rstrip(".").strip()
    return re.sub(r"\s+", " ", text)


def normalise_label(kind: str, value: str) -> tuple[str, bool]:
    """Map a case-label spelling to the contract's value; returns ``(value, changed)``.

    ``"extrem hard"``, ``"Extreme hard"``, ``"extreme-hard"`` -> ``"extreme_hard"``;
    ``"Rare"`` -> ``"rare"``; ``"Extremely rare"`` -> ``"extreme_rare"``. ``kind`` is
    ``difficulty``, ``rarity`` or ``importance``. Raises :class:`LabelError` when unknown.
    """
    allowed = LABELS.get(kind)
    if allowed is None:
        raise LabelError(kind, value)
    words = re.split(r"[\s_\-]+", _squash(value))
    words = ["extreme" if w in ("extrem", "extremely", "extreme") else w for w in words if w]
    candidate = "_".join(words)
    if candidate not in allowed:
        raise LabelError(kind, value)
    return candidate, candidate != value


def suggestions(field: str) -> list[str]:
    """The spellings the scoring core understands for a metadata field or case label."""
    key = "imaged_region" if field == "region" else field
    return list(_SUGGESTIONS.get(key, ()))


# --- what the matcher misreads -------------------------------------------------------------

_MEANINGLESS_CONTRAST = {"yes", "no", "y", "n", "true", "false", "none"}
# A negated phrase the matcher does not know still contains "contrast": it reads "with".
_NEGATION = re.compile(r"\b(no|without|w/o|not)\b")
_BOTH_PHASES = re.compile(r"\bwith\b.*\bwithout\b|\bwithout\b.*\bwith\b")
_HYPHENATED_PET = re.compile(r"\bpet-(ct|mr|mri)\b")


def metadata_misreads(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, message)`` for each metadata value the request matcher misreads."""
    found: list[tuple[str, str]] = []
    contrast = meta.get("contrast")
    if isinstance(contrast, str) and contrast.strip():
        squashed = _squash(contrast)
        understood = normalise_for_compare("contrast", contrast)
        if squashed in _MEANINGLESS_CONTRAST:
            found.append(("contrast", f"contrast {clipped(contrast)} carries no meaning for"
                                      f" the matcher; use one of {', '.join(CONTRAST_TERMS)}"))
        elif (understood not in CONTRAST_TERMS and "contrast" in squashed
              and _NEGATION.search(squashed) and not _BOTH_PHASES.search(squashed)):
            found.append(("contrast", f"contrast {clipped(contrast)} is read as WITH contrast"
                                      " by the matcher; write 'non-contrast'"))
    modality = meta.get("modality")
    if isinstance(modality, str) and _HYPHENATED_PET.search(_squash(modality)):
        found.append(("modality", f"modality {clipped(modality)} with a hyphen is read as two"
                      " modalities; write it with a slash, e.g. 'PET/CT'"))
    if "region" in meta and "imaged_region" not in meta:
        found.append(("region", "the matcher reads 'imaged_region', not 'region';"
                      " the region is ignored"))
    return found


def metadata_warnings(meta: dict[str, Any]) -> list[str]:
    """Readable messages for the values of one exam's ``meta_info`` the matcher misreads."""
    return [message for _, message in metadata_misreads(meta)]


def unfamiliar_terms(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, message)`` for contrast/modality values outside the matcher's vocabulary.

    Not misread, only weaker for matching; non-imaging exams are skipped.
    """
    if is_non_imaging(meta):
        return []
    found: list[tuple[str, str]] = []
    for key, terms in (("contrast", CONTRAST_TERMS), ("modality", MODALITY_TERMS)):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        known = {normalise_for_compare(key, term) for term in terms}
        if normalise_for_compare(key, value) not in known:
            found.append((key, f"{key} {clipped(value)} is outside the matcher's vocabulary"
                          f" ({', '.join(terms)})"))
    return found


# --- comparing values as the matcher would -------------------------------------------------

_ALIASES: dict[str, dict[str, str]] = {
    "modality": {
        "mr": "mri", "magnetic resonance": "mri", "magnetic resonance imaging": "mri",
        "computed tomography": "ct", "ct angiography": "cta", "mr angiography": "mra",
        "mr venography": "mrv", "digital subtraction angiography": "dsa",
        "catheter angiography": "dsa", "x ray": "x-ray", "xray": "x-ray",
        "radiograph": "x-ray", "radiography": "x-ray", "us": "ultrasound",
        "sonography": "ultrasound", "pet ct": "pet/ct", "pet / ct": "pet/ct",
    },
    "acquisition": {
        "dwi": "dwi/adc", "adc": "dwi/adc", "dwi / adc": "dwi/adc", "diffusion": "dwi/adc",
        "diffusion weighted": "dwi/adc", "swi": "swi", "susceptibility weighted": "swi",
        "gradient echo": "gre", "t2*": "gre", "mrs": "spectroscopy",
        "mr spectroscopy": "spectroscopy", "t1 post contrast": "post-contrast t1",
        "t1 post-contrast": "post-contrast t1", "post contrast t1": "post-contrast t1",
        "t1+c": "post-contrast t1", "t1 c+": "post-contrast t1",
        "contrast-enhanced t1": "post-contrast t1", "bone windows": "bone window",
    },
    "imaged_region": {
        "head & neck": "head and neck", "head/neck": "head and neck",
        "c-spine": "cervical spine", "c spine": "cervical spine",
        "t-spine": "thoracic spine", "t spine": "thoracic spine",
        "l-spine": "lumbar spine", "l spine": "lumbar spine", "orbit": "orbits",
        "whole-spine": "whole spine",
    },
    "view": {"ax": "axial", "cor": "coronal", "sag": "sagittal"},
}
_WEIGHTED = re.compile(r"\b(t1|t2|pd)(?:[\s-]?weighted|w)\b")
_CONTRAST_PREFIX = re.compile(r"\b(non|post)[\s-]?contrast\b")


def normalise_for_compare(field: str, value: object) -> str:
    """A comparison key: two values with equal keys mean the same to the matcher.

    Case, spacing and trivial spelling variants are ignored ("T2" equals "T2-weighted",
    "MR" equals "MRI"); variants the matcher reads differently stay different ("No contrast"
    is not "non-contrast", "PET-CT" is not "PET/CT"). None gives "".
    """
    if value is None:
        return ""
    if field == "time_past":
        number = time_past_number(value)
        if number is not None:
            return f"{number:g}"
    text = _squash(str(value)).replace("_", " ")
    if field in ("acquisition", "contrast"):
        text = _CONTRAST_PREFIX.sub(lambda m: f"{m.group(1)}-contrast", text)
    if field == "acquisition":
        text = _WEIGHTED.sub(lambda m: m.group(1), text)
    key = "imaged_region" if field == "region" else field
    return _ALIASES.get(key, {}).get(text, text)


# --- exam classes the scoring core treats specially ----------------------------------------


def is_non_imaging(meta: dict[str, Any]) -> bool:
    """True when modality or acquisition names a non-imaging exam (photo, pathology, ...)."""
    for key in ("modality", "acquisition"):
        value = meta.get(key)
        if isinstance(value, str) and any(w in value.lower() for w in NON_IMAGING_WORDS):
            return True
    return False


def time_past_number(value: object) -> float | None:
    """``time_past`` as a number when it is numeric (numbers and numeric strings), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def is_follow_up(time_past: object) -> bool:
    """True for a future follow-up (numeric ``time_past < 0``): outside the requestable pool."""
    number = time_past_number(time_past)
    return number is not None and number < 0


def is_prior(time_past: object) -> bool:
    """True for prior imaging the patient brought (numeric ``time_past > 0``)."""
    number = time_past_number(time_past)
    return number is not None and number > 0
