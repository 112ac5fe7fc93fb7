"""Several annotators' packages imported at once (real processes, both stores): no stuck case.

Each case is shared by two of the three offline annotators, so every case receives two
submissions from two concurrent imports. Without the case's row lock, PostgreSQL's READ
COMMITTED let each import see only its own submission and leave the case in ``annotating``.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from sync_support import ALPHA, BETA, CURATOR, GAMMA, complete

from annotator.services.repair import repair_case_states
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_packages
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project
from annotator.store.schema import Case

MINE = {ALPHA: ("T1", "T2"), BETA: ("T1", "T3"), GAMMA: ("T2", "T3")}


def _importer(location: str, package: str, barrier: Any, out: Any) -> None:
    project = open_project(location, create=False)
    try:
        barrier.wait(60)
        [result] = import_packages(project, CURATOR, [Path(package)])
        out.put(type(result).__name__)
    finally:
        project.close()


def _package_of(curator: Project, name: str, tmp_path: Path) -> Path:
    slug = name.split()[1].lower()
    bundle = make_bundle(curator, CURATOR, name, tmp_path / f"{slug}.annotator-bundle")
    unbundle(bundle.path, tmp_path / f"{slug}-laptop")
    laptop = open_project(tmp_path / f"{slug}-laptop", create=False)
    try:
        for case_id in MINE[name]:
            complete(laptop, name, case_id)
        return make_package(laptop, tmp_path / f"{slug}.annotator-package").path
    finally:
        laptop.close()


def test_three_packages_imported_at_once_leave_no_case_behind(
    curator: Project, tmp_path: Path
) -> None:
    packages = [_package_of(curator, name, tmp_path) for name in MINE]
    location = curator.location
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(len(packages)), ctx.Queue()
    procs = [ctx.Process(target=_importer, args=(location, str(p), barrier, out))
             for p in packages]
    for p in procs:
        p.start()
    results = sorted(out.get(timeout=180) for _ in procs)
    for p in procs:
        p.join(180)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert results == ["PackageImportReport"] * 3
    with curator.tx() as session:
        states = dict(session.query(Case.case_id, Case.state).all())
    assert states == {"T1": "in_review", "T2": "in_review", "T3": "in_review"}
    assert repair_case_states(curator, CURATOR) == []
