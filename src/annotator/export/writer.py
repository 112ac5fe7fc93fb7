"""Writing a release folder: cases, images, tables, card, Croissant, manifest.

Everything is built in a temporary folder beside the target and moved into place at the
end, so a failed export (a privacy finding, a case that breaks the contract, a full disk)
leaves nothing behind. The bytes depend only on the release input and the options: no
clock values (the date is stated only when given), sorted inputs, fixed formats.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator import __version__
from annotator.export import layout as L
from annotator.export.agreement import AgreementPart
from annotator.export.card import CardInput, render_card
from annotator.export.counts import distributions, image_paths, json_counts
from annotator.export.croissant import build_croissant
from annotator.export.diff import release_diff
from annotator.export.errors import ExportError
from annotator.export.images import (
    ShippedImage,
    Writer,
    path_map,
    rewrite_paths,
    ship_case_images,
)
from annotator.export.in_order import in_order
from annotator.export.manifest import manifest_bytes
from annotator.export.model import PROVENANCE_KEY, case_problems
from annotator.export.privacy import check, name_findings
from annotator.export.rai import rai_fields
from annotator.export.release_input import HeldBack, ReleasedCase, ReleaseInput
from annotator.export.render_cache import RenderCache
from annotator.export.settings import CardSettings
from annotator.export.text_gate import TextVerdicts
from annotator.staging import move_into_place, staging_dir
from annotator.tasks import TaskState


@dataclass(frozen=True)
class ExportOptions:
    version: str
    date: str | None = None
    previous: Path | None = None
    include_comments: bool = False
    include_dicom: bool = False


@dataclass
class ExportResult:
    folder: Path
    files: list[str]
    cases: int
    images: int
    excluded: list[HeldBack]
    held_back: list[HeldBack]
    notes: list[str] = field(default_factory=list)


def _prepare(out: Path) -> Path:
    out = out.expanduser().resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out} exists and is not an empty folder; choose a new folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def write_release(
    data: ReleaseInput,
    out: Path,
    settings: CardSettings,
    options: ExportOptions,
    agreement: AgreementPart,
    task: TaskState | None = None,
) -> ExportResult:
    """Write the release of ``data`` to the new folder ``out``; raises ExportError.

    ``task`` hears the progress and may cancel between cases (``Cancelled``): the staging
    folder is removed, so a cancelled export leaves nothing behind.
    """
    out = _prepare(out)
    settings = settings.replace(version=options.version)
    state = task or TaskState()
    total = sum(len(c.images) for c in data.cases) + 2

    def report(done: int, of: int, message: str) -> None:
        state.check()
        state.progress(done / of, message)

    tmp = staging_dir(out, "export")
    checksums: dict[str, str] = {}
    # Folders made so far: a mkdir per file (600 per 100 cases) failed with EEXIST all but
    # once a case. Two threads may both make a new one: exist_ok covers it.
    folders: set[Path] = {tmp}

    def write(rel: str, payload: bytes, sha: str | None = None) -> None:
        target = tmp / rel
        if target.parent not in folders:
            target.parent.mkdir(parents=True, exist_ok=True)
            folders.add(target.parent)
        target.write_bytes(payload)
        checksums[rel] = sha or L.sha256_hex(payload)

    try:
        cases, shipped, findings = _write_cases(data, options, write, report, total)
        report(total - 2, total, "writing tables, card and Croissant")
        texts = _texts(data, settings, options, agreement, cases, shipped)
        findings += name_findings(texts, data.user_names)
        check(findings)
        for rel in sorted(texts):
            write(rel, texts[rel])
        write(L.MANIFEST, manifest_bytes(checksums))
        report(total - 1, total, "moving the release into place")
        try:
            move_into_place(tmp, out)
        except OSError as exc:
            raise ExportError(f"{out} was written by another export while this one ran"
                              f" ({exc.strerror or exc}); this one was discarded") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    state.progress(1.0, "done")
    notes = [] if agreement.json is not None else [agreement.note]
    return ExportResult(out, sorted(checksums), len(cases), len(shipped), data.excluded,
                        data.held_back, notes)


def _write_cases(
    data: ReleaseInput, options: ExportOptions, write: Writer,
    report: Callable[[int, int, str], None], total: int,
) -> tuple[list[dict[str, Any]], list[ShippedImage], list[str]]:
    cases: list[dict[str, Any]] = []
    shipped: list[ShippedImage] = []
    findings: list[str] = []
    problems: list[str] = []
    renders = RenderCache(data.renders_dir)
    verdicts = TextVerdicts(data.verdicts_dir)

    def ship(case: ReleasedCase) -> tuple[list[ShippedImage], list[str]]:
        found: list[str] = []
        images = ship_case_images(case, data.image_bytes, write,
                                  include_dicom=options.include_dicom, findings=found,
                                  renders=renders, verdicts=verdicts)
        return images, found

    # The cases' images on a few threads (files read and written, rows inflated, bytes
    # hashed: the GIL is released for each), taken in the cases' order, so the release's
    # bytes do not depend on which thread finished first.
    with closing(in_order(ship, data.cases, name="export-case")) as shipped_cases:
        for case, (images, found) in shipped_cases:
            report(len(shipped), total, f"case {case.case_id}")
            findings += found
            shipped += images
            cases.append(_final(case, images, problems))
    if problems:
        raise ExportError("the release would break the contract:\n"
                          + "\n".join(f"  {p}" for p in problems))
    return cases, shipped, findings


def _final(case: ReleasedCase, images: list[ShippedImage], problems: list[str]
           ) -> dict[str, Any]:
    """The case as released (image paths rewritten, provenance added); what breaks the
    contract is added to ``problems``."""
    final = rewrite_paths(case.release, path_map(case))
    final[PROVENANCE_KEY] = case.provenance
    on_disk = {img.path for img in images}
    problems += [f"case {case.case_id}: {p}" for p in case_problems(final)]
    problems += [f"case {case.case_id}: image {p} is not in the release"
                 for p in image_paths(final) if p not in on_disk]
    return final


def _texts(
    data: ReleaseInput, settings: CardSettings, options: ExportOptions,
    agreement: AgreementPart, cases: list[dict[str, Any]], shipped: list[ShippedImage],
) -> dict[str, bytes]:
    texts: dict[str, bytes] = {
        L.RELEASE_JSON: L.dump_json(cases),
        L.IMAGES_CSV: L.csv_bytes(L.IMAGES_CSV_COLUMNS, (i.csv_row() for i in shipped)),
        L.ATTRIBUTION_TSV: L.tsv_bytes(L.ATTRIBUTION_COLUMNS,
                                       (i.attribution_row() for i in shipped)),
        L.EXCLUDED_CSV: L.csv_bytes(L.EXCLUDED_COLUMNS, (
            {"case_id": h.case_id, "reason_code": h.reason_code, "reason": h.reason}
            for h in data.excluded)),
    }
    if agreement.json is not None:
        texts[L.AGREEMENT_JSON] = agreement.json
    if agreement.html is not None:
        texts[L.AGREEMENT_HTML] = agreement.html
    diff = None
    if options.previous is not None:
        diff = release_diff(options.previous, cases, {i.path: i.sha256 for i in shipped},
                            settings.version)
        texts[L.DIFF_JSON] = L.dump_json(diff)
    counts = {**json_counts(cases), "project_cases": data.project_cases,
              "annotated_candidates": data.annotated_candidates,
              "excluded_cases": len(data.excluded), "held_back_cases": len(data.held_back)}
    per_case = sorted({len(c.provenance["reviewers"]) for c in data.cases})
    reviewers = (f"{per_case[0]}" if len(per_case) == 1 else
                 f"{per_case[0]}-{per_case[-1]}" if per_case else "0")
    policies = sorted({str(i.render["policy"]) for i in shipped if i.render})
    top = sorted({rel.split("/")[0] + ("/" if "/" in rel else "") for rel in
                  [*texts, *(i.path for i in shipped), L.CARD_MD, L.CROISSANT_JSON, L.MANIFEST]
                  + ([L.DICOM_DIR + "/"] if any(i.dicom_path for i in shipped) else [])})
    card = CardInput(
        settings=settings, date=options.date, counts=counts,
        distributions=distributions(cases), excluded=data.excluded, held_back=data.held_back,
        annotators=data.annotators, adjudicators=data.adjudicators,
        reviewers_per_case=reviewers, dicom_rendered=sum(1 for i in shipped if i.render),
        policies=policies, licences=Counter(i.license or "not stated" for i in shipped),
        agreement_header=agreement.header, agreement_rows=agreement.rows,
        agreement_note=agreement.note, files=top, include_comments=options.include_comments,
        diff=diff, history_head=data.history_head,
    )
    texts[L.CARD_MD] = render_card(card).encode("utf-8")
    suffixes: dict[str, set[str]] = {}
    for image in shipped:
        suffixes.setdefault(image.media_type, set()).add(Path(image.path).suffix)
        if image.dicom_path:
            suffixes.setdefault("application/dicom", set()).add("dicom")
    image_sets = {
        media: sorted(f"{L.DICOM_DIR}/*/*.dcm" if s == "dicom" else f"{L.IMAGES_DIR}/*/*{s}"
                      for s in found)
        for media, found in suffixes.items()
    }
    rai = rai_fields(settings, reviewers_per_case=reviewers, annotators=data.annotators,
                     adjudicators=data.adjudicators, policies=policies,
                     agreement_note=agreement.note, include_comments=options.include_comments,
                     app_version=__version__)
    croissant = build_croissant(settings, date=options.date, files=texts,
                                image_sets=image_sets, counts=counts, rai=rai,
                                history_head=data.history_head)
    texts[L.CROISSANT_JSON] = L.dump_json(croissant)
    return texts
