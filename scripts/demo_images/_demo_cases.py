"""The images of each demo case (paths are relative to cases/demo)."""

from __future__ import annotations

import _demo_lesions as les
import numpy as np
from _demo_draw import perimetry, spectrum
from _demo_figures import T1_SOURCE, ct, ct_series, cta, mr, mr_series, multiframe, spine_ct
from _demo_io import copy_file, pydicom_file, save_image, seed_of
from _demo_synth import Blob, Brain, colormap, render, vessels

# Fictional identities: something for de-identification on import to remove.
DOE = {"PatientName": "Doe^Jane", "PatientID": "EGH-0047118", "PatientBirthDate": "19580314",
       "PatientSex": "F", "PatientAge": "065Y"}
ROE = {"PatientName": "Roe^Richard", "PatientID": "EUC-2231907", "PatientBirthDate": "19710302",
       "PatientSex": "M", "PatientAge": "052Y"}
POE = {"PatientName": "Poe^Anna", "PatientID": "EGH-0090311", "PatientBirthDate": "19950420",
       "PatientSex": "F", "PatientAge": "029Y"}


# Fictional: the simulated curator of the demo redacts it (issue 24).
DEMO_LABEL = "DOE^JANE 1961-03-14"


def _study(key: str, date: str, time: str, institution: str, description: str,
           accession: str) -> dict[str, str]:
    from _demo_dicom import uid

    return {"StudyInstanceUID": uid(key, "study"), "StudyDate": date, "StudyTime": time,
            "SeriesDate": date, "SeriesTime": time, "ContentDate": date, "ContentTime": time,
            "AccessionNumber": accession, "StudyID": accession[-4:],
            "StudyDescription": description, "InstitutionName": institution,
            "InstitutionAddress": "1 Example Road, Sampletown",
            "ReferringPhysicianName": "Smith^John", "OperatorsName": "Tech^Terry",
            "StationName": "DEMO-SCANNER"}


def case_001(b: Brain) -> None:
    d = "images/demo-001/"
    dense_m1 = vessels(b.plane("axial", -6), [[(-14, 2), (-25, 4), (-38, 4)]], 1.2) * 28.0
    ct(b, d + "f1_a.png", "axial", -6, les.MCA_ACUTE, "; hyperdense left M1 drawn (+28 HU)",
       extra=dense_m1)
    ct(b, d + "f1_b.png", "axial", 8, les.MCA_ACUTE, "; synthetic acute left MCA infarct")
    cta(b, d + "f2_a.png", les.willis(left_m1_occluded=True), "; left M1 cut off")
    mr(b, d + "f3_a.png", "axial", 8, "DWI", les.MCA_ACUTE, "; synthetic infarct", down=2)
    mr(b, d + "f3_b.png", "axial", 8, "ADC", les.MCA_ACUTE, "; synthetic infarct", down=2)
    copy_file(d + "f4_a.dcm", pydicom_file("examples_ybr_color.dcm"), "US",
              "copied unchanged: 30-frame colour ultrasound (JPEG Baseline, YBR_FULL_422), "
              "used as a transthoracic echocardiogram")
    ct(b, d + "f5_a.png", "axial", 8, les.MCA_LATE, "; synthetic chronic left MCA infarct")


def case_002(b: Brain) -> None:
    d = "images/demo-002/"
    ct(b, d + "f1_a.png", "axial", 22, les.GBM, "; synthetic right frontal glioblastoma; PNG "
       "text chunks naming a fictional patient", text={
           "Comment": "Jane Doe, MRN EGH-0047118, Example General Hospital",
           "Author": "Dr. A. Example"})
    mr_series(b, d + "f2_series", [10 + 3 * i for i in range(12)], "T1C", les.GBM,
              key="demo-002-t1c", patient=DOE,
              study=_study("demo-002", "20240115", "093000", "Example General Hospital",
                           "MRI BRAIN WITH AND WITHOUT CONTRAST", "EGH24011501"),
              series={"SeriesNumber": 5, "SeriesDescription": "AX T1 SE POST GD",
                      "ProtocolName": "BRAIN TUMOUR", "BodyPartExamined": "HEAD",
                      "ScanningSequence": "SE", "SequenceVariant": "SP", "ScanOptions": "",
                      "MRAcquisitionType": "2D", "RepetitionTime": "520", "EchoTime": "12",
                      "FlipAngle": "90", "MagneticFieldStrength": "1.5",
                      "ContrastBolusAgent": "Gadobutrol 0.1 mmol/kg"})
    mr(b, d + "f3_a.png", "axial", 22, "FLAIR", les.GBM, "; synthetic glioblastoma")
    mr(b, d + "f4_a.png", "axial", 22, "DWI", les.GBM, "; synthetic glioblastoma", down=2)
    mr(b, d + "f4_b.png", "axial", 22, "ADC", les.GBM, "; synthetic glioblastoma", down=2)
    cbv = render(b.plane("axial", 22), "CBV", les.GBM, seed_of(d + "f5_a.png"))
    save_image(d + "f5_a.png", colormap(cbv, "jet"), "MNI", T1_SOURCE,
               "axial plane z=+22 mm; synthetic rCBV map (grey > white matter, hot tumour rim), "
               "rainbow colour scale; RGB PNG")


def case_003(b: Brain) -> None:
    d = "images/demo-003/"
    mr(b, d + "f1_a.png", "sagittal", -20, "FLAIR", les.MS_NOW, "; synthetic MS lesions")
    multiframe(b, d + "f2_a.dcm", [12 + 3 * i for i in range(12)], "FLAIR", les.MS_NOW,
               key="demo-003-flair", acquisition_contrast="FLUID_ATTENUATED", patient=POE,
               study=_study("demo-003", "20240902", "141500", "Example General Hospital",
                            "MRI BRAIN MS PROTOCOL", "EGH24090207"),
               series={"SeriesNumber": 3, "SeriesDescription": "AX FLAIR 3mm",
                       "ProtocolName": "MS FOLLOW-UP", "BodyPartExamined": "HEAD",
                       "MagneticFieldStrength": "3"})
    mr(b, d + "f3_a.png", "axial", 24, "T1C", les.MS_NOW, "; synthetic MS lesions, one "
       "with open-ring enhancement")
    mr(b, d + "f4_a.png", "axial", 24, "FLAIR", les.MS_PRIOR, "; fewer synthetic MS lesions")
    mr(b, d + "f4_b.png", "sagittal", -20, "FLAIR", les.MS_PRIOR, "; fewer synthetic lesions")


def case_004(b: Brain) -> None:
    d = "images/demo-004/"
    copy_file(d + "f1_a.dcm", pydicom_file("MR_small_RLE.dcm"), "NEMA",
              "copied unchanged: 64x64 heavily T2-weighted 3D MR (RLE Lossless)")
    mr(b, d + "f2_a.png", "axial", -30, "T1C", les.SCHWANNOMA, "; synthetic left "
       "cerebellopontine angle mass with canalicular part")
    mr(b, d + "f2_b.png", "coronal", -31, "T1C", les.SCHWANNOMA, "; synthetic left CPA mass")
    copy_file(d + "f3_a.dcm", pydicom_file("MR_small_jp2klossless.dcm"), "NEMA",
              "copied unchanged: the same MR in JPEG 2000 Lossless")


def case_005(b: Brain) -> None:
    d = "images/demo-005/"
    spine_ct(d + "f1_a.dcm", d + "f2_a.png")
    copy_file(d + "f3_a.dcm", pydicom_file("CT_small.dcm"), "NEMA",
              "copied unchanged: 128x128 axial CT through a thoracic vertebra")


def case_006(b: Brain) -> None:
    d = "images/demo-006/"
    save_image(d + "f1_a.jpg", perimetry(), "DRAWN", "(drawn by _demo_draw.perimetry)",
               "visual-field chart with bitemporal hemianopia; JPEG with EXIF (artist, "
               "description naming a fictional patient, date)",
               exif={0x013B: "Orthoptics, Example General Hospital",
                     0x010E: "Visual fields - John Doe, DOB 1979-02-11",
                     0x0132: "2024:03:05 10:12:00"})
    mr(b, d + "f2_a.png", "sagittal", 0, "T1", les.ADENOMA, "; synthetic sellar mass")
    mr(b, d + "f3_a.png", "coronal", 2, "T1C", les.ADENOMA, "; synthetic sellar mass")
    ct(b, d + "f4_a.png", "axial", -24, les.ADENOMA, "; synthetic sellar mass")


def case_007(b: Brain) -> None:
    d = "images/demo-007/"
    ct(b, d + "f1_a.png", "axial", -18, les.HSE, "; synthetic left temporal oedema")
    mr(b, d + "f2_a.png", "axial", -18, "FLAIR", les.HSE, "; synthetic encephalitis")
    mr(b, d + "f2_b.png", "coronal", -12, "FLAIR", les.HSE, "; synthetic encephalitis")
    mr(b, d + "f3_a.png", "axial", -18, "DWI", les.HSE, "; synthetic encephalitis", down=2)
    mr(b, d + "f3_b.png", "axial", -18, "ADC", les.HSE, "; synthetic encephalitis", down=2)
    mr(b, d + "f4_a.png", "coronal", -12, "T1C", les.HSE, "; synthetic gyral enhancement",
       label=DEMO_LABEL)


def case_008(b: Brain) -> None:
    d = "images/demo-008/"
    ct_series(b, d + "f1_series", [-20 + 5 * i for i in range(6)], les.SAH,
              key="demo-008-ct", patient=ROE,
              study=_study("demo-008", "20230611", "031500", "Example University Clinic",
                           "CT HEAD WITHOUT CONTRAST", "EUC23061103"),
              series={"SeriesNumber": 2, "SeriesDescription": "AX HEAD 5mm",
                      "BodyPartExamined": "HEAD", "KVP": "120", "ConvolutionKernel": "H31s"})
    cta(b, d + "f2_a.png", les.willis(), "; drawn anterior communicating aneurysm",
        aneurysm=les.ACOM_ANEURYSM)
    resolving = [Blob(x.center, x.radii, {"CT": 24.0}, tissue=x.tissue) for x in les.SAH]
    sl = b.plane("axial", -12)
    x, y, r = les.ACOM_ANEURYSM
    dist = np.hypot(sl.xyz[0] - x, sl.xyz[1] - y)
    angle = np.arctan2(sl.xyz[1] - y, sl.xyz[0] - x)
    coil = np.clip(r + 0.5 - dist, 0, 1) * 2500.0 + 30.0 * np.cos(14 * angle) * np.exp(-dist / 12)
    ct(b, d + "f3_a.png", "axial", -12, resolving, "; resolving blood, drawn coil with streak "
       "artefact", extra=coil * (dist < 90))


def case_009(b: Brain) -> None:
    d = "images/demo-009/"
    ct(b, d + "f1_a.png", "axial", 25, les.SDH, "; synthetic right subdural haematoma")
    ct(b, d + "f2_a.png", "axial", 25, les.SDH, "; synthetic right subdural haematoma",
       win=(500, 2000))
    ct(b, d + "f3_a.png", "coronal", -10, les.SDH, "; synthetic right subdural haematoma")


def case_010(b: Brain) -> None:
    d = "images/demo-010/"
    ct(b, d + "f1_a.png", "axial", 28, les.ABSCESS, "; synthetic left parietal abscess")
    mr(b, d + "f2_a.png", "axial", 28, "T1C", les.ABSCESS, "; synthetic abscess")
    mr(b, d + "f3_a.png", "axial", 28, "DWI", les.ABSCESS, "; synthetic abscess", down=2)
    mr(b, d + "f3_b.png", "axial", 28, "ADC", les.ABSCESS, "; synthetic abscess", down=2)
    save_image(d + "f4_a.png", spectrum(seed_of(d + "f4_a.png")), "DRAWN",
               "(drawn by _demo_draw.spectrum)", "plotted synthetic proton spectrum (amino "
               "acids, lactate, acetate, succinate); 8-bit PNG")


def case_011(b: Brain) -> None:
    d = "images/demo-011/"
    ct(b, d + "f1_a.png", "axial", 44, les.MENINGIOMA, "; synthetic left frontal meningioma")
    mr(b, d + "f2_a.png", "coronal", 30, "T1C", les.MENINGIOMA, "; synthetic meningioma")
    mr(b, d + "f3_a.png", "axial", 42, "T2", les.MENINGIOMA, "; synthetic meningioma")
    mr(b, d + "f4_a.png", "axial", 42, "T1C", les.MENINGIOMA, "; synthetic meningioma")


def case_012(b: Brain) -> None:
    d = "images/demo-012/"
    ct(b, d + "f1_a.png", "axial", 22, les.PRES, "; synthetic posterior oedema")
    mr(b, d + "f2_a.png", "axial", 22, "FLAIR", les.PRES, "; synthetic PRES")
    mr(b, d + "f2_b.png", "axial", 38, "FLAIR", les.PRES, "; synthetic PRES")
    mr(b, d + "f3_a.png", "axial", 22, "DWI", les.PRES, "; synthetic PRES", down=2)
    mr(b, d + "f3_b.png", "axial", 22, "ADC", les.PRES, "; synthetic PRES", down=2)
    mr(b, d + "f4_a.png", "axial", 22, "FLAIR", [], "; no lesion (resolved)")


def case_013(b: Brain) -> None:
    d = "images/demo-013/"
    mr(b, d + "f1_a.png", "axial", 12, "FLAIR", les.CJD, "; synthetic cortical/striatal signal")
    mr(b, d + "f2_a.png", "axial", 12, "DWI", les.CJD, "; synthetic cortical ribboning", down=2)
    mr(b, d + "f2_b.png", "axial", 40, "DWI", les.CJD, "; synthetic cortical ribboning", down=2)
    mr(b, d + "f2_c.png", "axial", 12, "ADC", les.CJD, "; synthetic cortical ribboning", down=2)
    ct(b, d + "f3_a.png", "axial", 12, [], "; no lesion")


def case_014(b: Brain) -> None:
    d = "images/demo-014/"
    ct(b, d + "f1_a.png", "axial", 10, les.LYMPHOMA, "; synthetic hyperdense periventricular mass")
    mr(b, d + "f2_a.png", "axial", 10, "T1C", les.LYMPHOMA, "; synthetic lymphoma")
    mr(b, d + "f2_b.png", "coronal", 16, "T1C", les.LYMPHOMA, "; synthetic lymphoma")
    mr(b, d + "f3_a.png", "axial", 10, "DWI", les.LYMPHOMA, "; synthetic lymphoma", down=2)
    mr(b, d + "f3_b.png", "axial", 10, "ADC", les.LYMPHOMA, "; synthetic lymphoma", down=2)
    pet = render(b.plane("axial", 10), "PET", les.LYMPHOMA, seed_of(d + "f4_a.png"))
    save_image(d + "f4_a.png", colormap(pet / 1.7, "hot"), "MNI", T1_SOURCE,
               "axial plane z=+10 mm; synthetic FDG PET (grey-matter uptake, avid lesion), "
               "hot colour scale; RGB PNG")


def build(b: Brain) -> None:
    """Write the images of every demo case."""
    for make in (case_001, case_002, case_003, case_004, case_005, case_006, case_007,
                 case_008, case_009, case_010, case_011, case_012, case_013, case_014):
        make(b)
