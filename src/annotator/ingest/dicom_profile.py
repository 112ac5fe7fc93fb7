"""What of a DICOM file survives de-identification: an allow-list, after DICOM PS3.15 Annex E.

The Basic Application Level Confidentiality Profile lists what to remove; an allow-list is the
stricter reading of it: every element that is not needed to show the pixels, window them and
place them in space is dropped, so an attribute nobody thought of (a free-text comment, a
vendor's private block, a new standard tag) cannot pass. Free text the metadata helper needs
is replaced by a controlled word (the acquisition read from SeriesDescription; "CONTRAST" for
a named contrast agent), never kept. Patient name and ID stay present but empty (type 2).

The same list is what the export's privacy gate accepts, so a file is either clean by this
profile or blocks the release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.imaging.dicom_header import acquisition_label

if TYPE_CHECKING:
    from pydicom.dataset import Dataset

# Elements kept at any depth (sequence items are filtered by the same list).
KEEP: frozenset[str] = frozenset({
    # SOP common, identity of study/series/instance (UIDs replaced by dicognito)
    "SpecificCharacterSet", "ImageType", "SOPClassUID", "SOPInstanceUID", "StudyInstanceUID",
    "SeriesInstanceUID", "FrameOfReferenceUID", "SeriesNumber", "InstanceNumber",
    "AcquisitionNumber", "StudyDate", "SeriesDate",  # dates shifted by dicognito
    # patient module: present but emptied (type 2)
    "PatientName", "PatientID",
    # equipment and acquisition (technical, not identifying; retained by the Basic Profile)
    "Modality", "Manufacturer", "ManufacturerModelName", "BodyPartExamined",
    "ContrastBolusAgent", "SeriesDescription", "SequenceName", "ScanningSequence",
    "SequenceVariant", "ScanOptions", "MRAcquisitionType", "SliceThickness", "RepetitionTime",
    "EchoTime", "InversionTime", "FlipAngle", "MagneticFieldStrength", "EchoTrainLength",
    "KVP", "XRayTubeCurrent", "ExposureTime", "ConvolutionKernel", "SpacingBetweenSlices",
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
    "RescaleIntercept", "RescaleSlope", "RescaleType", "ModalityLUTSequence",
    "ModalityLUTType", "LUTDescriptor", "LUTData", "WindowCenter", "WindowWidth",
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
PREAMBLE = b"\x00" * 128


def controlled_series_description(text: str) -> str | None:
    """The acquisition word for a SeriesDescription (``FLAIR``, ``T1``...), else None."""
    return acquisition_label(text) if text.strip() else None


def apply_profile(ds: Dataset) -> list[str]:
    """Reduce ``ds`` (already through dicognito) to the allow-list; what went, as text."""
    from pydicom.dataset import FileMetaDataset

    removed: list[str] = []
    description = str(ds.get("SeriesDescription", "") or "")
    agent = str(ds.get("ContrastBolusAgent", "") or "")
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
    for keyword in EMPTIED:
        setattr(ds, keyword, "")
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


def _filter(ds: Dataset, removed: list[str], prefix: str) -> None:
    for elem in list(ds):
        name = elem.keyword or str(elem.tag)
        if elem.tag.is_private or elem.keyword not in KEEP:
            del ds[elem.tag]
            removed.append(f"{prefix}{name} removed")
        elif elem.VR == "SQ":
            for item in elem.value:
                _filter(item, removed, f"{prefix}{name} > ")
