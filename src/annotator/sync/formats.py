"""The two round-trip file formats as pydantic models (documented in docs/bundle-and-package.md).

A work bundle (curator -> one annotator) and an annotation package (annotator -> curator) are
both zip files holding ``manifest.json`` (a header naming the kind, format version, project,
annotator, and the SHA-256 of every other member, sealed by a checksum over itself) and
``content.json``; a bundle also holds ``images/<sha256>``.

Versioning rule: ``format_version`` is one integer per kind. A writer raises it whenever a
field is added, removed or changes meaning; a reader accepts every version up to its own and
refuses a newer one before looking at anything else. Models forbid unknown fields, so a file
that claims this version but carries other fields is refused as damaged.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from annotator.domain.text_fields import LabelKey, Name, Word
from annotator.errors import AnnotatorError

BUNDLE_KIND: Final = "annotator-work-bundle"
PACKAGE_KIND: Final = "annotator-annotation-package"
# 2: bundles carry a package secret, packages an HMAC signature (sync/signing.py).
# 3: hidden repeats (issue 26). One rater can now hold two work rows for the same item (the
#    first rating and its hidden repeat), so a file may carry two entries for one item told
#    apart only by their opaque work reference (the annotation's ``id``), and the importer
#    applies each entry to the row with that id. An app of version 2 keys the work by
#    item and would merge or collide the two, so it must refuse version-3 files (a reader
#    refuses newer versions first). No field marks a repeat: the rater's client must not be
#    able to tell (blinding); the layout of the models is that of version 2.
BUNDLE_FORMAT_VERSION = 3
PACKAGE_FORMAT_VERSION = 3
# The first version whose packages may list one case twice (the first rating and its repeat).
TWO_ENTRIES_PER_CASE = 3
FORMAT_VERSIONS = {BUNDLE_KIND: BUNDLE_FORMAT_VERSION, PACKAGE_KIND: PACKAGE_FORMAT_VERSION}
KIND_WORDS = {BUNDLE_KIND: "a work bundle", PACKAGE_KIND: "an annotation package"}


def _naive_utc(value: datetime) -> datetime:
    # The store keeps naive UTC; a time written with an offset is converted, not trusted as is.
    return value if value.tzinfo is None else value.astimezone(UTC).replace(tzinfo=None)


Timestamp = Annotated[datetime, AfterValidator(_naive_utc)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
AnnotationStateName = Literal["assigned", "in_progress", "submitted"]
CaseStateName = Literal["annotating", "in_review", "green_lit", "excluded"]


class SyncFileError(AnnotatorError):
    """A bundle or package cannot be used: unreadable, damaged, foreign or too new."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileEntry(_Model):
    """One zip member other than the manifest, with the SHA-256 and size of its bytes."""

    path: str
    sha256: Sha256
    size: int = Field(ge=0)


class CaseRef(_Model):
    """A case the file covers and the content hash of the revision it was made on."""

    case_id: Name
    revision_hash: str


class Manifest(_Model):
    """The fields both kinds share; ``checksum`` seals the manifest (and so every member)."""

    kind: str
    format_version: int = Field(ge=1)
    app_version: str
    project_id: Name
    annotator: Name
    created_at: Timestamp
    cases: list[CaseRef]
    files: list[FileEntry]
    checksum: Sha256


class BundleManifest(Manifest):
    kind: Literal["annotator-work-bundle"] = BUNDLE_KIND
    bundle_id: uuid.UUID
    project_name: str | None = None


class PackageManifest(Manifest):
    kind: Literal["annotator-annotation-package"] = PACKAGE_KIND
    package_id: uuid.UUID
    source_id: uuid.UUID  # the annotator's offline project (one per unbundle)
    sequence: int = Field(ge=1, lt=2**31)  # 1, 2, 3... per source: orders one laptop's packages
    bundle_id: uuid.UUID
    signature: Sha256 | None = None  # HMAC-SHA256 with the bundle's key; None only before v2


class HistoryItem(_Model):
    """One entry of the annotator's own history on their annotation."""

    id: uuid.UUID
    at: Timestamp
    actor: Name
    action: Word
    key: LabelKey | None = None
    before: Any = None
    after: Any = None
    detail: dict[str, Any] = Field(default_factory=dict)


class AnnotationRecord(_Model):
    """The annotator's annotation of one case, with its history (oldest first)."""

    id: uuid.UUID
    state: AnnotationStateName
    labels: dict[LabelKey, Any]
    submitted_labels: dict[LabelKey, Any] | None = None
    submitted_at: Timestamp | None = None
    needs_recheck: bool = False
    created_at: Timestamp
    updated_at: Timestamp
    history: list[HistoryItem] = Field(default_factory=list)


class RevisionRecord(_Model):
    """The case's current draft revision (de-identified content)."""

    id: uuid.UUID
    number: int = Field(ge=1)
    content_hash: str
    content: dict[str, Any]
    original_values: dict[str, Any] = Field(default_factory=dict)
    problems: list[Any] = Field(default_factory=list)
    warnings: list[Any] = Field(default_factory=list)


class BundleImage(_Model):
    """One image of the revision; its bytes are the member ``images/<sha256>``."""

    draft_path: str
    sha256: Sha256
    media_type: str
    width: int
    height: int
    frames: int = 1
    figures: list[Any] = Field(default_factory=list)
    name: str | None = None
    caption: str | None = None
    attribution: dict[str, Any] = Field(default_factory=dict)
    removed: list[Any] = Field(default_factory=list)
    dicom_header: dict[str, Any] = Field(default_factory=dict)


class BundleCase(_Model):
    case_uuid: uuid.UUID
    case_id: str
    case_state: CaseStateName
    revision: RevisionRecord
    images: list[BundleImage]
    annotation: AnnotationRecord


class BundleContent(_Model):
    annotator_id: uuid.UUID
    annotator: str
    cases: list[BundleCase]
    package_secret: Sha256 | None = None  # signs this annotator's packages; None only before v2


class PackageCase(_Model):
    case_id: Name
    revision_hash: str
    annotation: AnnotationRecord


class PackageContent(_Model):
    annotator: Name
    cases: list[PackageCase]
