"""The Responsible-AI (``rai:``) fields of croissant.json, as text (paper, Table 12)."""

from __future__ import annotations

from annotator.domain.labels import REASON_CODES
from annotator.export.settings import CardSettings


def rai_fields(
    settings: CardSettings,
    *,
    reviewers_per_case: str,
    annotators: int,
    adjudicators: int,
    policies: list[str],
    agreement_note: str,
    include_comments: bool,
    app_version: str,
) -> dict[str, str | list[str]]:
    """Every ``rai:`` value is a string or a list of strings (Croissant wants text)."""
    collection = settings.source_collection or "published teaching cases"
    return {
        "dataCollection": (
            f"Cases derived from {collection}. Draft case objects (histories, exam metadata,"
            " steps, rubrics) were imported with their images, then reviewed and corrected by"
            " physicians."
        ),
        "dataCollectionType": ["Secondary use of published cases", "Expert annotation"],
        "dataCollectionMissingData": (
            "Future follow-up exams (numeric time_past < 0) are kept in the records but are not"
            " requestable; excluded cases are listed in excluded.csv with their reasons."
        ),
        "dataPreprocessingProtocol": [
            "Images de-identified at import: DICOM names, ids and UIDs replaced, dates shifted"
            " and private tags removed (seeded, reproducible); PNG/JPEG metadata stripped.",
            "DICOM images ship as PNG renditions with the file's window; multi-frame files"
            " render their middle frame; settings per image in images.csv."
            + (" " + "; ".join(policies) if policies else ""),
            "Image paths rewritten to images/<case>/<file>.",
        ],
        "dataAnnotationProtocol": [
            f"Each case was annotated independently and blind by {reviewers_per_case} physician"
            " reviewer(s): step importance (essential/optional/unnecessary), preferred order"
            " (integer stages, ties allowed), difficulty, rarity, metadata, caption and rubric"
            " corrections, discard with reason.",
            "Unanimous items resolve automatically; conflicts are decided by an adjudicator who"
            " did not annotate the case, with a reason code (" + ", ".join(REASON_CODES) + ").",
        ],
        "dataAnnotationPlatform": [f"annotator {app_version} (offline desktop application)"],
        "dataAnnotationAnalysis": [agreement_note],
        "annotationsPerItem": reviewers_per_case,
        "annotatorDemographics": [
            settings.team or f"{annotators} physician reviewer(s) and {adjudicators}"
            " adjudicator(s); identities withheld (pseudonymous reviewer ids)."
        ],
        "machineAnnotationTools": [
            "Draft case objects were generated before physician review; every released label"
            " is a physician's or an adjudicator's final value."
        ],
        "dataUseCases": [settings.intended_use or "not stated"],
        "dataLimitations": [settings.risks or "not stated",
                            "Leakage audit: " + (settings.leakage_audit or "not stated"),
                            "Validation: " + (settings.validation_status or "not stated")],
        "dataBiases": [settings.biases or "not stated"],
        "dataSocialImpact": "Non-use: " + (settings.non_use or "not stated"),
        "personalSensitiveInformation": [
            "No patient identifiers: images de-identified at import and checked again at"
            " export; reviewers appear only as pseudonyms"
            + ("; reviewers' free-text comments are included." if include_comments
               else "; free-text comments are not released.")
        ],
        "dataReleaseMaintenancePlan": " ".join(
            t for t in (settings.maintenance, settings.changelog and
                        f"Changelog: {settings.changelog}",
                        settings.contact and f"Contact: {settings.contact}") if t
        ) or "not stated",
    }
