"""Synthetic lesions of the demo cases.

Coordinates are MNI152 millimetres: +x = patient's right, +y = anterior, +z = superior.
Values are signal targets per contrast (0..1 for MR and PET, Hounsfield units for CT).
"""

from __future__ import annotations

from _demo_synth import Blob

# demo-001: acute left MCA territory infarct (insula, frontal operculum, lentiform nucleus).
MCA_ACUTE = [
    Blob((-40, 4, 8), (13, 22, 17), {"DWI": 0.95, "ADC": 0.18, "CT": 27.0}, wobble=0.15),
    Blob((-24, 4, 2), (6, 10, 7), {"DWI": 0.9, "ADC": 0.2, "CT": 26.0}, weight=0.9),
]
MCA_LATE = [Blob(b.center, b.radii, {"CT": 12.0}, wobble=b.wobble) for b in MCA_ACUTE]

# Circle of Willis at the level of the basal cisterns (x, y in mm) for CTA-style MIPs.
_M1_RIGHT = [(14.0, 2.0), (25.0, 4.0), (38.0, 4.0)]
_M2_RIGHT = [[(38.0, 4.0), (45.0, 12.0), (52.0, 25.0)], [(38.0, 4.0), (46.0, -5.0), (55.0, -20.0)]]


def _mirror(path: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(-x, y) for x, y in path]


def willis(left_m1_occluded: bool = False) -> list[list[tuple[float, float]]]:
    """Polylines of the circle of Willis and its first branches (x, y in mm)."""
    paths = [_M1_RIGHT, *_M2_RIGHT]
    if left_m1_occluded:
        paths.append([(-14.0, 2.0), (-19.0, 3.0)])  # abrupt cut-off of the proximal left M1
    else:
        paths += [_mirror(_M1_RIGHT), *(_mirror(p) for p in _M2_RIGHT)]
    for side in (1.0, -1.0):
        paths += [
            [(side * 14, 2.0), (side * 4, 14.0)],  # A1
            [(side * 3, 14.0), (side * 3, 35.0), (side * 4, 55.0)],  # A2
            [(side * 14, 2.0), (side * 12, -14.0)],  # posterior communicating
            [(0.0, -16.0), (side * 8, -17.0), (side * 12, -14.0)],  # P1
            [(side * 12, -14.0), (side * 22, -30.0), (side * 22, -55.0), (side * 15, -80.0)],
        ]
    paths.append([(-4.0, 14.0), (4.0, 14.0)])  # anterior communicating
    paths.append([(0.0, -16.0), (0.0, -19.0)])  # basilar tip
    return paths


# demo-002: right frontal glioblastoma: oedema, irregular enhancing rim, necrotic core.
GBM = [
    Blob((30, 28, 22), (26, 26, 24),
         {"T1": 0.7, "T1C": 0.7, "FLAIR": 0.85, "T2": 0.8, "CT": 22.0, "DWI": 0.5, "ADC": 0.7,
          "CBV": 0.35}, tissue="wm", wobble=0.15),
    Blob((30, 28, 22), (15, 14, 14),
         {"T1": 0.5, "T1C": 1.0, "FLAIR": 0.65, "T2": 0.6, "CT": 34.0, "DWI": 0.55, "ADC": 0.5,
          "CBV": 1.0}, wobble=0.2),
    Blob((30, 28, 22), (10, 9, 10),
         {"T1": 0.3, "T1C": 0.3, "FLAIR": 0.75, "T2": 0.9, "CT": 14.0, "DWI": 0.15, "ADC": 1.0,
          "CBV": 0.1}, wobble=0.2),
]

# demo-003: multiple sclerosis: periventricular ovoid lesions perpendicular to the ventricles.
_MS_VALUES = {"FLAIR": 0.95, "T2": 0.9, "T1": 0.55, "T1C": 0.55}
_MS_OLD = [
    Blob((-20, 5, 24), (3, 3, 9), _MS_VALUES),
    Blob((-20, -28, 22), (3.5, 3.5, 9), _MS_VALUES),
    Blob((20, 18, 18), (3, 3, 8), _MS_VALUES),
]
_MS_NEW = [
    Blob((-19, -12, 30), (3, 3, 9), _MS_VALUES),
    Blob((-24, -20, 34), (3, 4, 6), _MS_VALUES),
    Blob((26, -35, 28), (3, 4, 8), _MS_VALUES),
    Blob((-45, -20, 40), (3, 3, 3), _MS_VALUES),  # juxtacortical
    Blob((0, 5, 20), (3, 7, 2.5), _MS_VALUES),  # callososeptal interface
    Blob((16, -38, -30), (4, 4, 4), _MS_VALUES),  # right middle cerebellar peduncle
    Blob((22, -10, 24), (4, 5, 7), {"FLAIR": 0.95, "T2": 0.9, "T1": 0.5}),
    Blob((22, -10, 24), (4, 5, 7), {"T1C": 1.0}, shell=(0.55, 1.0)),  # open-ring enhancement
]
MS_PRIOR = _MS_OLD
MS_NOW = _MS_OLD + _MS_NEW

# demo-004: left vestibular schwannoma in the cerebellopontine angle with canalicular part.
SCHWANNOMA = [
    Blob((-24, -32, -30), (9, 8, 8), {"T1": 0.55, "T1C": 0.95, "T2": 0.7}, extra_axial=True),
    Blob((-33, -30, -30), (6, 2.5, 2.5), {"T1": 0.55, "T1C": 0.9, "T2": 0.7}, extra_axial=True),
]

# demo-006: sellar and suprasellar macroadenoma ("snowman").
ADENOMA = [
    Blob((0, 2, -24), (10, 9, 10), {"T1": 0.58, "T1C": 0.95, "T2": 0.55, "CT": 42.0},
         extra_axial=True, wobble=0.08),
    Blob((0, 2, -35), (8, 8, 6), {"T1": 0.58, "T1C": 0.9, "T2": 0.55, "CT": 42.0},
         extra_axial=True),
]

# demo-007: herpes simplex encephalitis, left mesial temporal lobe and insula.
_HSE = {"FLAIR": 0.9, "T2": 0.85, "DWI": 0.85, "ADC": 0.5, "CT": 26.0, "T1": 0.5, "T1C": 0.5}
HSE = [
    Blob((-28, -12, -20), (12, 22, 12), _HSE, wobble=0.1),
    Blob((-38, 2, 4), (6, 14, 12), _HSE, weight=0.8),
    Blob((-30, -8, -14), (16, 26, 20), {"T1C": 0.85}, tissue="gm", weight=0.6),
]

# demo-008: aneurysmal subarachnoid haemorrhage (blood in cisterns and fissures).
SAH = [
    Blob((0, 2, -12), (62, 36, 18), {"CT": 62.0, "FLAIR": 0.8}, tissue="csf"),
    Blob((0, 30, 10), (5, 30, 20), {"CT": 60.0, "FLAIR": 0.8}, tissue="csf"),
]
ACOM_ANEURYSM = (1.0, 15.0, 3.5)  # x, y, radius in mm, on the CTA MIP

# demo-009: acute right convexity subdural haematoma.
SDH = [Blob((55, -10, 25), (45, 80, 50), {"CT": 66.0}, tissue="surface", edge=0.3)]

# demo-010: left parietal pyogenic abscess: oedema, smooth thin rim, restricted core.
ABSCESS = [
    Blob((-32, -48, 28), (24, 24, 22),
         {"FLAIR": 0.85, "T2": 0.8, "T1": 0.7, "T1C": 0.7, "CT": 22.0, "ADC": 0.7, "DWI": 0.45},
         tissue="wm"),
    Blob((-32, -48, 28), (11, 11, 11),
         {"T1C": 1.0, "T1": 0.6, "FLAIR": 0.3, "T2": 0.3, "CT": 36.0, "ADC": 0.45, "DWI": 0.4},
         shell=(0.78, 1.0), edge=0.12),
    Blob((-32, -48, 28), (8.6, 8.6, 8.6),
         {"T1C": 0.25, "T1": 0.3, "FLAIR": 0.85, "T2": 0.92, "DWI": 0.95, "ADC": 0.15,
          "CT": 16.0}, edge=0.12),
]

# demo-011: left frontal convexity meningioma with dural tail and a calcification.
MENINGIOMA = [
    Blob((-26, 28, 42), (20, 22, 20), {"FLAIR": 0.7, "T2": 0.7}, tissue="wm", weight=0.7),
    Blob((-31, 30, 42), (12, 14, 14),
         {"T1": 0.6, "T1C": 0.95, "T2": 0.62, "FLAIR": 0.6, "CT": 48.0}, tissue=None),
    Blob((-41.5, 30, 42), (1.2, 26, 24), {"T1C": 0.85}, tissue=None),  # dural tail
    Blob((-36, 32, 44), (2.5, 2.5, 2.5), {"CT": 400.0}, tissue=None),  # calcification
]

# demo-012: PRES: posterior-predominant subcortical vasogenic oedema, both hemispheres.
_PRES = {"FLAIR": 0.88, "T2": 0.85, "ADC": 0.75, "DWI": 0.5, "T1": 0.6, "CT": 22.0}
PRES = [
    Blob((30, -72, 22), (18, 20, 20), _PRES, tissue="wm"),
    Blob((-30, -72, 22), (18, 20, 20), _PRES, tissue="wm"),
    Blob((28, 30, 40), (10, 12, 12), _PRES, tissue="wm", weight=0.6),
    Blob((-28, 30, 40), (10, 12, 12), _PRES, tissue="wm", weight=0.6),
]

# demo-013: sporadic CJD: cortical ribboning (right > left) and anterior striatum.
_CJD = {"DWI": 0.95, "ADC": 0.3, "FLAIR": 0.72}
CJD = [
    Blob((35, 0, 40), (40, 60, 35), _CJD, tissue="gm"),
    Blob((-35, -50, 35), (25, 30, 25), _CJD, tissue="gm", weight=0.8),
    Blob((12, 12, 10), (6, 8, 8), _CJD),
    Blob((-12, 12, 10), (6, 8, 8), _CJD),
    Blob((24, 6, 2), (6, 12, 8), _CJD, weight=0.85),
    Blob((-24, 6, 2), (6, 12, 8), _CJD, weight=0.85),
]

# demo-014: primary CNS lymphoma next to the right frontal horn, FDG-avid.
LYMPHOMA = [
    Blob((14, 16, 10), (22, 22, 20), {"FLAIR": 0.8, "T2": 0.75}, tissue="wm", weight=0.7),
    Blob((14, 16, 10), (13, 12, 11),
         {"T1": 0.55, "T1C": 0.92, "FLAIR": 0.7, "T2": 0.6, "DWI": 0.88, "ADC": 0.32,
          "CT": 46.0, "PET": 1.6}, wobble=0.1),
]
