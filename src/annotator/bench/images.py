"""Deterministic synthetic images: 8-bit PNG, 16-bit CT DICOM, multi-frame MR DICOM.

Smooth phantoms (ellipses on a gradient, light noise) so that PNG compresses the way scans
do; DICOM carries a made-up patient name so import has something to de-identify.
"""

from __future__ import annotations

import io

import numpy as np


def phantom(rng: np.random.Generator, size: int) -> np.ndarray:
    """A float image in 0..1: a body ellipse, a few blobs, a gradient and noise."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    image = np.where(x**2 / 0.18 + y**2 / 0.22 < 1, 0.45, 0.02).astype(np.float32)
    for _ in range(4):
        cx, cy = rng.uniform(-0.25, 0.25, 2)
        r = rng.uniform(0.03, 0.12)
        image += np.where((x - cx) ** 2 + (y - cy) ** 2 < r * r, rng.uniform(-0.2, 0.4), 0)
    image += 0.1 * (x + 0.5)
    image += rng.normal(0, 0.015, image.shape).astype(np.float32)
    return np.clip(image, 0, 1)


def png_bytes(rng: np.random.Generator, size: int) -> bytes:
    from PIL import Image

    pixels = (phantom(rng, size) * 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels, "L").save(buffer, "PNG")
    return buffer.getvalue()


def dicom_bytes(rng: np.random.Generator, size: int, frames: int, patient: str) -> bytes:
    """A 16-bit (12 bits stored) CT slice, or an MR series of ``frames`` frames."""
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import UID, ExplicitVRLittleEndian, generate_uid

    stack = np.stack([phantom(rng, size) for _ in range(frames)])
    pixels = (stack * 4000).astype(np.uint16)
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = UID("1.2.840.10008.5.1.4.1.1.4" if frames > 1 else
                                       "1.2.840.10008.5.1.4.1.1.2")  # MR or CT image
    meta.MediaStorageSOPInstanceUID = generate_uid(entropy_srcs=[patient, str(rng.random())])
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = meta.MediaStorageSOPClassUID
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.StudyInstanceUID = generate_uid(entropy_srcs=[patient, "study"])
    ds.SeriesInstanceUID = generate_uid(entropy_srcs=[patient, "series", str(frames)])
    ds.PatientName = patient.replace(" ", "^")
    ds.PatientID = f"ID-{abs(hash(patient)) % 10**8:08d}"
    ds.StudyDate = "20240101"
    ds.Modality = "MR" if frames > 1 else "CT"
    ds.SeriesDescription = "AX"
    ds.Rows = ds.Columns = size
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.BitsAllocated, ds.BitsStored, ds.HighBit = 16, 12, 11
    ds.PixelRepresentation = 0
    ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
    ds.WindowCenter, ds.WindowWidth = 40, 400
    if frames > 1:
        ds.NumberOfFrames = frames
    ds.PixelData = pixels.tobytes()
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()
