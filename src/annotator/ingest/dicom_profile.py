"""What of a DICOM file survives de-identification: an allow-list, after DICOM PS3.15 Annex E.

The Basic Application Level Confidentiality Profile lists what to remove; an allow-list is the
stricter reading of it: every element that is not needed to show the pixels, window them and
place them in space is dropped, so an attribute nobody thought of (a free-text comment, a
vendor's private block, a new standard tag) cannot pass. Free text the metadata helper needs
is replaced by a controlled word (the acquisition read from SeriesDescription; "CONTRAST" for
a named contrast agent), never kept. Patient name and ID stay present but empty (type 2).

Kept elements whose value is text hold only controlled values (:mod:`dicom_terms`): a code
string keeps its defined terms and loses anything typed; the file's own de-identification
claim is replaced by what this profile did. The same lists are what the export's privacy gate
accepts, so a file is either clean by this profile or blocks the release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.imaging.dicom_header import acquisition_label
from annotator.ingest.dicom_terms import DEID_CODE, DEID_METHOD, TEXT_VRS, allowed_term, values_of

if TYPE_CHECKING:
    from pydicom.dataelem import DataElement
    from pydicom.dataset import Dataset

# Elements kept at any depth (sequence items are filtered by the same list).
KEEP: frozenset[str] = frozenset({
    # SOP common, identity of study/series/instance (UIDs replaced by dicognito)
    "SpecificCharacterSet", "ImageType", "SOPClassUID", "SOPInstanceUID", "StudyInstanceUID",
    "SeriesInstanceUID", "FrameOfReferenceUID", "SeriesNumber", "InstanceNumber",
    "AcquisitionNumber", "StudyDate", "SeriesDate",  # dates shifted by dicognito
    # patient module: present but emptied (type 2)
    "PatientName", "PatientID",
    # other type 2 attributes, emptied (EMPTIED_IF_PRESENT)
    "PatientBirthDate", "PatientSex", "StudyTime", "ReferringPhysicianName", "StudyID",
    "AccessionNumber", "PositionReferenceIndicator", "Manufacturer",
    # equipment and acquisition (technical; coded values only, see dicom_terms: free-text
    # ones such as Manufacturer, SequenceName or ConvolutionKernel are not kept)
    "Modality", "BodyPartExamined",
    "ContrastBolusAgent", "SeriesDescription", "ScanningSequence",
    "SequenceVariant", "ScanOptions", "MRAcquisitionType", "SliceThickness", "RepetitionTime",
    "EchoTime", "InversionTime", "FlipAngle", "MagneticFieldStrength", "EchoTrainLength",
    "KVP", "XRayTubeCurrent", "ExposureTime", "SpacingBetweenSlices",
    "PatientPosition", "ViewPosition", "Laterality", "ImageLaterality", "PatientOrientation",
    # geometry
    "ImagePositionPatient", "ImageOrientationPatient", "SliceLocation", "PixelSpacing",
    "ImagerPixelSpacing",
    # image pixel module
    "SamplesPerPixel", "PhotometricInterpretation", "NumberOfFrames", "FrameIncrementPointer",
    "Rows", "Columns", "PlanarConfiguration", "PixelAspectRatio", "BitsAllocated",
    "BitsStored", "HighBit", "PixelRepresentation", "SmallestImagePixelValue",
    "LargestImagePixelValue", "RedPaletteColorLookupTableDescriptor",
    "GreenPaletteColorLookupTableDescriptor", "BluePaletteColorLookupTableDescriptor",
    "RedPaletteColorLookupTableData", "GreenPaletteColorLookupTableData",
    "BluePaletteColorLookupTableData", "PixelData", "ExtendedOffsetTable",
    "ExtendedOffsetTableLengths",
    # modality and VOI LUTs (pydicom's pixel pipeline)
    "RescaleIntercept", "RescaleSlope", "ModalityLUTSequence",
    "LUTDescriptor", "LUTData", "WindowCenter", "WindowWidth",
    "VOILUTFunction", "VOILUTSequence",
    # enhanced multi-frame functional groups that carry geometry and windowing
    "SharedFunctionalGroupsSequence", "PerFrameFunctionalGroupsSequence",
    "PixelMeasuresSequence", "PlanePositionSequence", "PlaneOrientationSequence",
    "FrameVOILUTSequence", "PixelValueTransformationSequence",
    # what was done to the file
    "PatientIdentityRemoved", "DeidentificationMethod", "DeidentificationMethodCodeSequence",
    "CodeValue", "CodingSchemeDesignator", "CodeMeaning",
    "LongitudinalTemporalInformationModified", "BurnedInAnnotation",
    "RecognizableVisualFeatures", "LossyImageCompression", "LossyImageCompressionRatio",
    "LossyImageCompressionMethod",
})

# File meta information (group 0002) a Part 10 file needs; everything else there is dropped.
FILE_META_KEEP: frozenset[str] = frozenset({
    "FileMetaInformationGroupLength", "FileMetaInformationVersion", "MediaStorageSOPClassUID",
    "MediaStorageSOPInstanceUID", "TransferSyntaxUID", "ImplementationClassUID",
    "ImplementationVersionName",
})

# Kept only as a controlled word, never as the author's text.
CONTRAST_WORD = "CONTRAST"
EMPTIED = ("PatientName", "PatientID")
# Type 2 attributes of the image IODs (present, may be empty): kept empty when the input has
# them, so the file stays valid for its IOD (dciodvfy: no "missing Type 2" error the input
# did not have). Table E.1-1's Basic Profile empties each (Z) or allows emptying (X/Z...).
EMPTIED_IF_PRESENT = ("PatientBirthDate", "PatientSex", "StudyTime",
                      "ReferringPhysicianName", "StudyID", "AccessionNumber",
                      "PositionReferenceIndicator", "Manufacturer")
# Text elements whose value apply_profile writes itself (checked apart from the coded terms).
WRITTEN = frozenset({*EMPTIED, *EMPTIED_IF_PRESENT, "SeriesDescription", "ContrastBolusAgent",
                     "DeidentificationMethod", *DEID_CODE})
PREAMBLE = b"\x00" * 128
# Transfer syntaxes whose pixel data is the pixels alone (a compressed frame is a JPEG or JPEG
# 2000 stream with its own comment and application segments, invisible to the filter).
NATIVE_SYNTAXES = frozenset({
    "1.2.840.10008.1.2", "1.2.840.10008.1.2.1", "1.2.840.10008.1.2.2",
})


def controlled_series_description(text: str) -> str | None:
    """The acquisition word for a SeriesDescription (``FLAIR``, ``T1``...), else None."""
    return acquisition_label(text) if text.strip() else None


def apply_profile(ds: Dataset) -> list[str]:
    """Reduce ``ds`` (already through dicognito) to the allow-list; what went, as text."""
    from pydicom.dataset import FileMetaDataset

    removed: list[str] = []
    description = str(ds.get("SeriesDescription", "") or "")
    agent = str(ds.get("ContrastBolusAgent", "") or "")
    present = [keyword for keyword in EMPTIED_IF_PRESENT if keyword in ds]
    _filter(ds, removed, "")
    word = controlled_series_description(description)
    if description.strip():
        if word:
            ds.SeriesDescription = word
            removed.append(f"SeriesDescription replaced by {word!r}")
        else:
            del ds.SeriesDescription
            removed.append("SeriesDescription removed")
    if agent.strip():
        ds.ContrastBolusAgent = CONTRAST_WORD
        removed.append("ContrastBolusAgent replaced")
    for keyword in (*EMPTIED, *present):
        setattr(ds, keyword, "")
    _write_deid_claim(ds)
    old_meta = ds.get("file_meta") or FileMetaDataset()
    meta = FileMetaDataset()
    sop_class = ds.get("SOPClassUID") or old_meta.get("MediaStorageSOPClassUID")
    sop_instance = ds.get("SOPInstanceUID") or old_meta.get("MediaStorageSOPInstanceUID")
    if sop_class:
        meta.MediaStorageSOPClassUID = sop_class
    if sop_instance:
        meta.MediaStorageSOPInstanceUID = sop_instance
    if "TransferSyntaxUID" in old_meta:
        meta.TransferSyntaxUID = old_meta.TransferSyntaxUID
    dropped_meta = [e.keyword or str(e.tag) for e in old_meta
                    if e.keyword not in FILE_META_KEEP or e.tag.is_private]
    removed += [f"file meta {name} removed" for name in dropped_meta]
    ds.file_meta = meta
    if ds.preamble and any(ds.preamble):
        removed.append("128-byte preamble zeroed")
    ds.preamble = PREAMBLE
    return removed


def native_pixels(ds: Dataset) -> list[str]:
    """Store the pixel data uncompressed and exactly as long as its frames; what changed.

    Compressed frames are decoded (pydicom's decoders; a frame that cannot be decoded raises)
    so their segments go; a deflated data set is written plain; bytes after the last frame
    (beyond the one pad byte) are cut.
    """
    from pydicom.pixels.utils import get_expected_length
    from pydicom.uid import ExplicitVRLittleEndian

    changed: list[str] = []
    syntax = ds.file_meta.TransferSyntaxUID
    if "PixelData" in ds and syntax.is_encapsulated:
        ds.decompress(generate_instance_uid=False)  # keep the (replaced) UID: deterministic
        changed.append(f"{syntax.name} frames decoded and stored uncompressed (their"
                       " segments removed)")
    elif str(syntax) not in NATIVE_SYNTAXES:
        ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
        changed.append(f"{syntax.name} written as {ExplicitVRLittleEndian.name}")
    for keyword in ("ExtendedOffsetTable", "ExtendedOffsetTableLengths"):
        if keyword in ds:
            del ds[keyword]
    if "PixelData" in ds:
        expected = int(get_expected_length(ds, "bytes"))
        padded = expected + expected % 2
        if len(ds.PixelData) > padded:
            ds.PixelData = ds.PixelData[:expected] + b"\x00" * (padded - expected)
            changed.append("bytes after the last frame removed")
    return changed


def _write_deid_claim(ds: Dataset) -> None:
    """Say what was done, in words of this profile (never the file's own claim, kept)."""
    from pydicom.dataset import Dataset

    code = Dataset()
    for keyword, value in DEID_CODE.items():
        setattr(code, keyword, value)
    ds.PatientIdentityRemoved = "YES"
    ds.DeidentificationMethod = DEID_METHOD
    ds.DeidentificationMethodCodeSequence = [code]


def _filter(ds: Dataset, removed: list[str], prefix: str) -> None:
    for elem in list(ds):
        name = elem.keyword or str(elem.tag)
        # What apply_profile writes itself is written at the top level only; nested, it is
        # text nobody controls.
        nested_written = bool(prefix) and elem.keyword in WRITTEN
        if elem.tag.is_private or elem.keyword not in KEEP or nested_written:
            del ds[elem.tag]
            removed.append(f"{prefix}{name} removed")
        elif elem.VR == "SQ":
            for item in elem.value:
                _filter(item, removed, f"{prefix}{name} > ")
        elif elem.VR in TEXT_VRS and elem.keyword not in WRITTEN:
            _keep_terms(ds, elem, removed, f"{prefix}{name}")


def _keep_terms(ds: Dataset, elem: DataElement, removed: list[str], label: str) -> None:
    """Drop the values of a coded text element that are not defined terms (all gone: it goes)."""
    values = values_of(elem.value)
    kept = [v for v in values if allowed_term(str(elem.keyword), v)]
    if kept == values:
        return
    if not [v for v in kept if v.strip()]:
        del ds[elem.tag]
        removed.append(f"{label} removed (not a defined term)")
    else:
        elem.value = kept
        removed.append(f"{label}: values that are not defined terms removed")
