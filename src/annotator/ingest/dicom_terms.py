"""The values a kept DICOM text element may hold: the standard's defined terms, nothing typed.

The allow-list of :mod:`dicom_profile` keeps elements; this module limits their values, so a
name typed into a kept element (Manufacturer, an ImageType value, a code meaning) cannot ride
along. PS3.15 Annex E asks for free text to be removed or replaced: an LO/SH element that is
nothing but free text (Manufacturer, SequenceName, ConvolutionKernel...) is not kept at all;
a code string (CS) keeps only the values listed here (from PS3.3's defined terms), others go.
The export's privacy gate applies the same terms to the bytes it is about to ship.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# VRs whose value is text a person could type (numbers, dates and UIDs are not listed).
TEXT_VRS = frozenset({"AE", "AS", "CS", "LO", "LT", "PN", "SH", "ST", "UC", "UR", "UT"})

# What the de-identification writes about itself; a file's own claim is replaced by these.
DEID_METHOD = "dicognito; DICOM PS3.15 Annex E allow-list"
DEID_CODE = {"CodeValue": "113100", "CodingSchemeDesignator": "DCM",
             "CodeMeaning": "Basic Application Confidentiality Profile"}

_YES_NO = frozenset({"YES", "NO"})
_SIDES = frozenset({"R", "L", "B", "U"})

TERMS: dict[str, frozenset[str]] = {
    "Modality": frozenset({
        "CR", "CT", "MR", "NM", "US", "OT", "BI", "DG", "ES", "LS", "PT", "RG", "TG", "XA",
        "RF", "RTIMAGE", "HC", "DX", "MG", "IO", "PX", "GM", "SM", "XC", "OP", "IVUS", "OPT",
        "OCT", "IVOCT", "PA", "SR", "DOC", "BMD", "SEG", "REG", "OPM", "KO", "PR", "AR", "CF",
        "DF", "DS", "MA", "MS", "VF", "EC", "FA", "OPV", "OAM", "OSS", "ECG", "EPS", "HD",
        "RESP", "XAPROTOCOL", "AU", "CTPROTOCOL", "PLAN", "FID", "TEXTUREMAP", "M3D", "LEN",
    }),
    "ImageType": frozenset({
        "ORIGINAL", "DERIVED", "PRIMARY", "SECONDARY", "AXIAL", "LOCALIZER", "REFORMATTED",
        "MPR", "MIP", "MINIP", "PROJECTION IMAGE", "VOLUME", "OTHER", "M", "P", "R", "I",
        "MAG", "PHASE", "REAL", "IMAGINARY", "DIFFUSION", "ADC", "TRACEW", "FA", "NORM", "ND",
        "DIS2D", "DIS3D", "MOCO", "SUBTRACT", "SUBTRACTION", "PERFUSION", "MOSAIC", "NONE",
        "POST_PROCESSED", "POST_CONTRAST", "PRE_CONTRAST", "FILTERED", "RESAMPLED", "STATIC",
        "DYNAMIC", "WHOLE BODY", "RECON TOMO", "EMISSION", "TRANSMISSION", "SINGLE PLANE",
        "BIPLANE A", "BIPLANE B", "CINE", "SCREENING", "DIAGNOSTIC", "FLUOROSCOPY",
        "ANGIO", "CARDIAC", "CT_SOM5 SPI", "CT_SOM5 SEQ", "SCOUT", "HELICAL", "T1", "T2",
        "PD", "FLAIR", "SWI", "STIR", "DWI", "DIXON", "WATER", "FAT", "IN_PHASE",
        "OUT_PHASE", "CSA MPR", "CSA RESAMPLED", "CSAPARALLEL", "CSA 3D EDITOR",
    }),
    "BodyPartExamined": frozenset({
        "ABDOMEN", "ABDOMENPELVIS", "ANKLE", "AORTA", "ARM", "AXILLA", "BACK", "BLADDER",
        "BRAIN", "BREAST", "BRONCHUS", "BUTTOCK", "CALCANEUS", "CALF", "CAROTID", "CEREBELLUM",
        "CERVIX", "CHEEK", "CHEST", "CHESTABDOMEN", "CHESTABDPELVIS", "CIRCLEOFWILLIS",
        "CLAVICLE", "COCCYX", "COLON", "CORNEA", "CORONARYARTERY", "CSPINE", "CTSPINE",
        "DUODENUM", "EAR", "ELBOW", "ESOPHAGUS", "EXTREMITY", "EYE", "EYELID", "FACE", "FEMUR",
        "FINGER", "FOOT", "FOREARM", "GALLBLADDER", "HAND", "HEAD", "HEADNECK", "HEART", "HIP",
        "HUMERUS", "ILEUM", "ILIUM", "IAC", "JAW", "JEJUNUM", "KIDNEY", "KNEE", "LARYNX",
        "LEG", "LIVER", "LSPINE", "LSSPINE", "LUNG", "MAXILLA", "MEDIASTINUM", "MOUTH", "NECK",
        "NECKCHEST", "NECKCHESTABDOMEN", "NECKCHESTABDPELV", "NOSE", "ORBIT", "OVARY",
        "PANCREAS", "PAROTID", "PATELLA", "PELVIS", "PENIS", "PHARYNX", "PROSTATE", "RADIUS",
        "RECTUM", "RIB", "SACRUM", "SCAPULA", "SCLERA", "SCROTUM", "SELLA", "SHOULDER",
        "SKULL", "SPINE", "SPLEEN", "STERNUM", "STOMACH", "SUBMANDIBULAR", "TESTIS", "THIGH",
        "THUMB", "THYMUS", "THYROID", "TIBIA", "TMJ", "TOE", "TONGUE", "TRACHEA", "TSPINE",
        "TLSPINE", "ULNA", "URETER", "URETHRA", "UTERUS", "VAGINA", "VULVA", "WHOLEBODY",
        "WRIST", "ZYGOMA", "PITUITARY", "SINUS", "TEMPORALBONE",
    }),
    "ScanningSequence": frozenset({"SE", "IR", "GR", "EP", "RM"}),
    "SequenceVariant": frozenset({"SK", "MTC", "SS", "TRSS", "SP", "MP", "OSP", "NONE"}),
    "ScanOptions": frozenset({
        "PER", "RG", "CG", "PPG", "FC", "PFF", "PFP", "SP", "FS", "IR", "SAT1", "SAT2",
        "SAT3", "FILTERED_GR", "HELICAL MODE", "AXIAL MODE", "HELICAL", "AXIAL", "SCOUT MODE",
    }),
    "MRAcquisitionType": frozenset({"2D", "3D"}),
    "PatientPosition": frozenset({
        "HFP", "HFS", "HFDR", "HFDL", "FFDR", "FFDL", "FFP", "FFS", "LFP", "LFS", "RFP", "RFS",
        "AFDR", "AFDL", "PFDR", "PFDL",
    }),
    "ViewPosition": frozenset({
        "AP", "PA", "LL", "RL", "RLD", "LLD", "RLO", "LLO", "LAT", "CC", "MLO", "ML", "LM",
        "LMO", "XCC", "XCCL", "XCCM", "FB", "SIO", "ISO", "AT",
    }),
    "Laterality": _SIDES,
    "ImageLaterality": _SIDES,
    "PhotometricInterpretation": frozenset({
        "MONOCHROME1", "MONOCHROME2", "PALETTE COLOR", "RGB", "YBR_FULL", "YBR_FULL_422",
        "YBR_PARTIAL_422", "YBR_PARTIAL_420", "YBR_ICT", "YBR_RCT", "XYB",
    }),
    "VOILUTFunction": frozenset({"LINEAR", "LINEAR_EXACT", "SIGMOID"}),
    "PatientIdentityRemoved": _YES_NO,
    "BurnedInAnnotation": _YES_NO,
    "RecognizableVisualFeatures": _YES_NO,
    "LossyImageCompression": frozenset({"00", "01"}),
    "LossyImageCompressionMethod": frozenset({
        "ISO_10918_1", "ISO_14495_1", "ISO_15444_1", "ISO_15444_15", "ISO_13818_2",
        "ISO_14496_10", "ISO_23008_2", "ISO_18181_1",
    }),
    "LongitudinalTemporalInformationModified": frozenset({"UNMODIFIED", "MODIFIED", "REMOVED"}),
}

PATTERNS: dict[str, re.Pattern[str]] = {
    "SpecificCharacterSet": re.compile(r"(ISO_IR \d{1,3}|ISO 2022 IR \d{1,3}|GB18030|GBK)?"),
    "PatientOrientation": re.compile(r"[APRLHF]{1,3}"),
}


def values_of(value: object) -> list[str]:
    """An element's value as a list of strings (one per DICOM value)."""
    if value is None:
        return []
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [str(v) for v in value]  # pydicom's MultiValue is a Sequence
    return [str(value)]


def allowed_term(keyword: str, value: str) -> bool:
    """Whether ``value`` may stay in the CS element ``keyword`` (empty values always may)."""
    text = value.strip()
    if not text:
        return True
    if keyword in PATTERNS:
        return PATTERNS[keyword].fullmatch(text) is not None
    return text in TERMS.get(keyword, frozenset())
