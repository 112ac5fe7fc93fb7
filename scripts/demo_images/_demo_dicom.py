"""DICOM writers for the demo images: an MR or CT series, an enhanced multi-frame MR, a
derived CT. Every UID comes from a fixed entropy source and every date is written out, so a
rerun gives identical bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import (
    UID,
    CTImageStorage,
    EnhancedMRImageStorage,
    ExplicitVRLittleEndian,
    MRImageStorage,
    RLELossless,
    generate_uid,
)

Array = NDArray[Any]
IMPLEMENTATION_UID = UID("1.2.826.0.1.3680043.8.498.1")  # under pydicom's root, fixed on purpose
DERIVATION = "Synthetic teaching image derived from the MNI ICBM152 2009a T1 template (nilearn)"


def uid(*parts: str) -> UID:
    """A UID under pydicom's root derived only from ``parts`` (same parts, same UID)."""
    return generate_uid(entropy_srcs=["annotator-demo", *parts])


def _base(sop_class: UID, sop_uid: UID, patient: dict[str, str], study: dict[str, Any]) -> Dataset:
    ds = Dataset()
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = sop_class
    meta.MediaStorageSOPInstanceUID = sop_uid
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    meta.ImplementationClassUID = IMPLEMENTATION_UID
    meta.ImplementationVersionName = "ANNOTATOR_DEMO"
    ds.file_meta = meta
    ds.SpecificCharacterSet = "ISO_IR 100"
    ds.SOPClassUID = sop_class
    ds.SOPInstanceUID = sop_uid
    for keyword, value in {**patient, **study}.items():
        setattr(ds, keyword, value)
    ds.Manufacturer = "annotator demo (synthetic)"
    ds.PatientPosition = "HFS"
    return ds


def _pixels(ds: Dataset, arr: Array, bits_stored: int, signed: bool = False) -> None:
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.Rows, ds.Columns = int(arr.shape[-2]), int(arr.shape[-1])
    ds.BitsAllocated = 16
    ds.BitsStored = bits_stored
    ds.HighBit = bits_stored - 1
    ds.PixelRepresentation = 1 if signed else 0
    dtype = np.int16 if signed else np.uint16
    ds.PixelData = np.ascontiguousarray(arr.astype(dtype)).tobytes()


def axial_position(corner_ras: tuple[float, float, float]) -> list[float]:
    """ImagePositionPatient (LPS) of the first pixel of a display-oriented axial plane."""
    x, y, z = corner_ras
    return [round(-x, 3), round(-y, 3), round(z, 3)]


def write_series(
    folder: Path,
    slices: list[tuple[Array, tuple[float, float, float]]],
    *,
    modality: str,
    key: str,
    patient: dict[str, str],
    study: dict[str, Any],
    series: dict[str, Any],
    window: tuple[list[str], list[str]],
) -> list[Path]:
    """Write consecutive axial slices (stored values, first-pixel RAS corner) as one series."""
    folder.mkdir(parents=True, exist_ok=True)
    sop_class = MRImageStorage if modality == "MR" else CTImageStorage
    series_uid, frame_uid = uid(key, "series"), uid(key, "frame")
    spacing = abs(slices[1][1][2] - slices[0][1][2]) if len(slices) > 1 else 3.0
    paths = []
    for number, (arr, corner) in enumerate(slices, start=1):
        ds = _base(sop_class, uid(key, "instance", str(number)), patient, study)
        ds.ImageType = ["DERIVED", "SECONDARY", "AXIAL"]
        ds.Modality = modality
        ds.DerivationDescription = DERIVATION
        for keyword, value in series.items():
            setattr(ds, keyword, value)
        ds.SeriesInstanceUID = series_uid
        ds.FrameOfReferenceUID = frame_uid
        ds.PositionReferenceIndicator = ""
        ds.InstanceNumber = number
        ds.ImagePositionPatient = axial_position(corner)
        ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
        ds.SliceLocation = round(corner[2], 3)
        ds.PixelSpacing = [1, 1]
        ds.SliceThickness = spacing
        ds.SpacingBetweenSlices = spacing
        ds.WindowCenter, ds.WindowWidth = window
        if modality == "CT":
            ds.RescaleIntercept, ds.RescaleSlope, ds.RescaleType = -1024, 1, "HU"
        _pixels(ds, arr, 12)
        path = folder / f"IM{number:04d}.dcm"
        ds.save_as(path, enforce_file_format=True)
        paths.append(path)
    return paths


def write_enhanced_mr(
    path: Path,
    frames: list[tuple[Array, tuple[float, float, float]]],
    *,
    key: str,
    patient: dict[str, str],
    study: dict[str, Any],
    series: dict[str, Any],
    window: tuple[str, str],
    acquisition_contrast: str,
) -> Path:
    """One Enhanced MR Image (NumberOfFrames > 1), RLE Lossless, with per-frame positions."""
    ds = _base(EnhancedMRImageStorage, uid(key, "instance"), patient, study)
    ds.ImageType = ["DERIVED", "PRIMARY", "VOLUME", "NONE"]
    ds.Modality = "MR"
    ds.DerivationDescription = DERIVATION
    for keyword, value in series.items():
        setattr(ds, keyword, value)
    ds.SeriesInstanceUID = uid(key, "series")
    ds.FrameOfReferenceUID = uid(key, "frame")
    ds.PositionReferenceIndicator = ""
    ds.InstanceNumber = 1
    ds.NumberOfFrames = len(frames)
    ds.ContentQualification = "RESEARCH"
    ds.ResonantNucleus = "1H"
    ds.PixelPresentation = "MONOCHROME"
    ds.VolumetricProperties = "VOLUME"
    ds.VolumeBasedCalculationTechnique = "NONE"
    ds.ComplexImageComponent = "MAGNITUDE"
    ds.AcquisitionContrast = acquisition_contrast
    # Plain readers look for the window at the top level; the standard place is per frame.
    ds.WindowCenter, ds.WindowWidth = window
    spacing = abs(frames[1][1][2] - frames[0][1][2])
    shared = Dataset()
    measures = Dataset()
    measures.PixelSpacing = [1, 1]
    measures.SliceThickness = spacing
    measures.SpacingBetweenSlices = spacing
    shared.PixelMeasuresSequence = Sequence([measures])
    orientation = Dataset()
    orientation.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    shared.PlaneOrientationSequence = Sequence([orientation])
    voi = Dataset()
    voi.WindowCenter, voi.WindowWidth = window
    shared.FrameVOILUTSequence = Sequence([voi])
    ds.SharedFunctionalGroupsSequence = Sequence([shared])
    per_frame = []
    for number, (_, corner) in enumerate(frames, start=1):
        item, position, content = Dataset(), Dataset(), Dataset()
        position.ImagePositionPatient = axial_position(corner)
        content.StackID = "1"
        content.InStackPositionNumber = number
        content.DimensionIndexValues = [1, number]
        item.PlanePositionSequence = Sequence([position])
        item.FrameContentSequence = Sequence([content])
        per_frame.append(item)
    ds.PerFrameFunctionalGroupsSequence = Sequence(per_frame)
    organization = Dataset()
    organization.DimensionOrganizationUID = uid(key, "dimensions")
    ds.DimensionOrganizationSequence = Sequence([organization])
    indices = []
    for pointer in (0x00209056, 0x00209057):  # StackID, InStackPositionNumber
        index = Dataset()
        index.DimensionIndexPointer = pointer
        index.FunctionalGroupPointer = 0x00209111  # FrameContentSequence
        index.DimensionOrganizationUID = organization.DimensionOrganizationUID
        indices.append(index)
    ds.DimensionIndexSequence = Sequence(indices)
    stack = np.stack([arr for arr, _ in frames])
    _pixels(ds, stack, 12)
    ds.compress(RLELossless, stack.astype(np.uint16), encoding_plugin="pydicom",
                generate_instance_uid=False)
    ds.save_as(path, enforce_file_format=True)
    return path


def write_derived_ct(src: Path, path: Path, hu: Array, *, key: str, description: str) -> Path:
    """Copy a CT file with new pixel values (HU), new UIDs and a derivation note."""
    import pydicom

    ds = pydicom.dcmread(src)
    slope, intercept = float(ds.RescaleSlope), float(ds.RescaleIntercept)
    stored = np.round((hu - intercept) / slope)
    info = np.iinfo(np.int16 if ds.PixelRepresentation else np.uint16)
    ds.PixelData = np.clip(stored, info.min, info.max).astype(info.dtype).tobytes()
    for keyword in ("SmallestImagePixelValue", "LargestImagePixelValue"):
        if keyword in ds:
            del ds[keyword]
    ds.SOPInstanceUID = uid(key, "instance")
    ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
    ds.SeriesInstanceUID = uid(key, "series")
    ds.ImageType = ["DERIVED", "SECONDARY", "AXIAL"]
    ds.DerivationDescription = description
    ds.SeriesDescription = "Derived demo image (synthetic lesion)"
    ds.save_as(path, enforce_file_format=True)
    return path
