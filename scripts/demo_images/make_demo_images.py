"""Build the demo images and SOURCES.md (src/annotator/demo_data) from files in PyPI packages.

Run once, commit the outputs:  python scripts/demo_images/make_demo_images.py
Needs numpy, scipy, Pillow, pydicom (runtime dependencies) plus nibabel and nilearn (build
only). Sources: pydicom's bundled test files and the MNI ICBM152 2009a T1 template that
nilearn ships. Deterministic: fixed seeds, UIDs from fixed entropy, dates written out.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the helper modules sit beside this script

from _demo_cases import build  # noqa: E402
from _demo_figures import load  # noqa: E402
from _demo_io import ATTRIBUTION, OUT, RECORDS  # noqa: E402
from _demo_io import HERE as DATA  # noqa: E402

SOURCES_HEADER = """# Sources of the demo images

Every image under `images/` was made by `make_demo_images.py` from files that ship inside
PyPI packages, or drawn by that script. No image carries a real patient's identity: the
MNI template is an average of many brains, and the pydicom files are anonymised public test
samples. The names, IDs and dates written into the generated DICOM files, PNG text chunks
and JPEG EXIF are fictional, there for the importer's de-identification to remove.
Lesions are synthetic and were added for teaching (see `_demo_lesions.py`).

## Packages and licences

- **pydicom 3.0.2** (MIT licence, "Copyright (c) 2008-2020 Darcy Mason and pydicom
  contributors"): test files in `pydicom/data/test_files/`. Its `README.txt` says that
  `CT_small.dcm` and `MR_small.dcm` were downsized from the NEMA WG04 sample images `CT1_UNC`
  and `MR1_UNC`, that `examples_ybr_color.dcm` is `color3d_jpeg_baseline.dcm` with fewer
  frames, and that, in the maintainers' words, "I believe there is no restriction on using
  any of these files in this manner". `MR_small_RLE.dcm` and `MR_small_jp2klossless.dcm` hold
  the same pixels as `MR_small.dcm` in RLE Lossless and JPEG 2000 Lossless transfer syntaxes.
  Names and IDs inside these files (for example `CompressedSamples^CT1`) are test
  placeholders, not patients.
- **nilearn 0.14.1** (BSD-3-Clause) ships the MNI ICBM152 2009a nonlinear template
  (1 mm, skull-stripped T1) in `nilearn/datasets/data/`:
  `mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz`, plus the grey- and white-matter
  probability maps `..._gm_...` and `..._wm_...`, used here only to place lesions in grey or
  white matter. nilearn's own description of the template
  (`nilearn/datasets/description/icbm152_2009.rst`) lists its licence as "unknown" and
  points to http://www.bic.mni.mcgill.ca/ServicesAtlases/ICBM152NLin2009. The McConnell
  Brain Imaging Centre publishes the templates under this notice, which must accompany
  every copy (quoted as reproduced with the templates, for example in the
  `BrainImAccs/fatbACPC` repository's `templates/README.md`):

  > Copyright (C) 1993-2004 Louis Collins, McConnell Brain Imaging Centre, Montreal
  > Neurological Institute, McGill University. Permission to use, copy, modify, and
  > distribute this software and its documentation for any purpose and without fee is
  > hereby granted, provided that the above copyright notice appear in all copies. The
  > authors and McGill University make no representations about the suitability of this
  > software for any purpose. It is provided "as is" without express or implied warranty.
  > The authors are not responsible for any data loss, equipment damage, property loss, or
  > injury to subjects or patients resulting from the use or misuse of this software
  > package.

  References: Fonov et al., NeuroImage 47 (2009) S102; Fonov et al., NeuroImage 54 (2011)
  313-327; Collins et al., 1999.
- Not used: `693_J2KI.dcm`, a head CT in pydicom's wheel, appears to come from the CQ500
  data set (its patient name is `CQ500-CT-310`), which is licensed CC BY-NC-SA 4.0.

## Attribution classes (copied verbatim into each case's `images[]`)

"""


def write_sources_md() -> None:
    """SOURCES.md: licence notices, the attribution classes and one row per file."""
    lines = [SOURCES_HEADER]
    for name, fields in ATTRIBUTION.items():
        lines.append(f"### {name}\n")
        for key in ("author", "license", "source_url"):
            lines.append(f"- {key}: `{fields[key]}`")
        lines.append("")
    lines.append("## Files\n")
    lines.append("| file | class | made from (package file) | what was derived |")
    lines.append("|---|---|---|---|")
    for rec in sorted(RECORDS, key=lambda r: r.path):
        lines.append(f"| `{rec.path}` | {rec.attribution} | `{rec.source}` | {rec.derivation} |")
    (DATA / "SOURCES.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    """Rebuild every demo image from scratch, then SOURCES.md."""
    if OUT.exists():
        shutil.rmtree(OUT)
    build(load())
    write_sources_md()
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"wrote {len(RECORDS)} files, {total / 1e6:.2f} MB under {OUT}")


if __name__ == "__main__":
    main()
