"""One simulated physician's offline round trip, for the demo project.

The physician works exactly as on a laptop: the curator bundles their cases, they unbundle
into their own project, label through the same services the workspace uses, package their
work, and the curator imports the package.
"""

from __future__ import annotations

import re
from pathlib import Path

from annotator.domain.labels import LabelEdit
from annotator.errors import ProjectError
from annotator.services import annotating, kinds
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.services.users import resolve_actor
from annotator.store.project import Project, open_project

BUNDLE_SUFFIX = ".annotator-bundle"
PACKAGE_SUFFIX = ".annotator-package"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "annotator"


def demo_offline_round_trip(
    project: Project, annotator_name: str, case_ids: list[str], workdir: Path
) -> None:
    """Bundle, unbundle into ``workdir``, label and submit ``case_ids`` there, package, import.

    The physician accepts the draft's suggestions and changes one importance per case. The
    curator acting is the project's default identity. Raises ProjectError unless every case
    came back ``added``.
    """
    workdir = Path(workdir)
    slug = _slug(annotator_name)
    curator = resolve_actor(project, None)
    bundle = make_bundle(project, curator, annotator_name, workdir / f"{slug}{BUNDLE_SUFFIX}")
    offline_dir = workdir / f"{slug}-offline"
    unbundle(bundle.path, offline_dir)
    laptop = open_project(offline_dir, create=False, backup=False)
    try:
        for case_id in case_ids:
            _label_like_a_physician(laptop, annotator_name, case_id)
            kinds.CASES.submit(laptop, annotator_name, case_id)
        package = make_package(laptop, workdir / f"{slug}{PACKAGE_SUFFIX}")
    finally:
        laptop.close()
    report = import_package(project, curator, package.path)
    wrong = [c for c in report.cases if c.case_id in case_ids and c.status != "added"]
    missing = set(case_ids) - {c.case_id for c in report.cases}
    if wrong or missing:
        details = [f"{c.case_id}: {c.status} ({c.reason})" for c in wrong]
        details += [f"{c}: not in the package" for c in sorted(missing)]
        raise ProjectError("the demo round trip did not apply: " + "; ".join(details))


def _label_like_a_physician(project: Project, name: str, case_id: str) -> None:
    """Accept the suggestions, decide what the draft left open, change one importance."""
    annotating.accept_suggestions(project, name, case_id)
    view = annotating.view(project, name, case_id)
    edits: list[LabelEdit] = []
    for figure in view.figures:
        if f"importance:{figure}" not in view.labels:
            edits.append(LabelEdit(f"importance:{figure}", {"value": "optional", "how": "set"}))
        if f"stage:{figure}" not in view.labels:  # explicitly unranked
            edits.append(LabelEdit(f"stage:{figure}", {"value": None, "how": "set"}))
    for family, value in (("difficulty", "normal"), ("rarity", "common")):
        if family not in view.labels:
            edits.append(LabelEdit(family, {"value": value, "how": "set"}))
    if view.figures:
        figure = view.figures[-1]
        current = view.labels.get(f"importance:{figure}", {}).get("value")
        other = "essential" if current != "essential" else "optional"
        edits.append(LabelEdit(f"importance:{figure}", {"value": other, "how": "set"}))
    kinds.CASES.set_fields(project, name, case_id, edits)
