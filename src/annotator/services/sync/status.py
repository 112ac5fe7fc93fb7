"""The curator's view of the round trip: per annotator, what went out and what came back."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from annotator.services.users import Person, people
from annotator.store import counts
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, SyncBundle, SyncPackage
from annotator.sync.offline import require_curator_side


@dataclass(frozen=True)
class RoundTripRow:
    """One annotator's round trip; case counts are over cases assigned to them now."""

    annotator: str
    assigned: int
    bundled: int  # assigned cases that went out in at least one bundle
    returned: int  # assigned cases whose work came back in at least one package
    packages: int
    last_bundle_at: datetime | None
    last_package_at: datetime | None  # when the annotator wrote their latest imported package
    last_import_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        def iso(value: datetime | None) -> str | None:
            return value.isoformat(timespec="seconds") if value else None

        return {
            "annotator": self.annotator,
            "assigned": self.assigned,
            "bundled": self.bundled,
            "returned": self.returned,
            "packages": self.packages,
            "last_bundle_at": iso(self.last_bundle_at),
            "last_package_at": iso(self.last_package_at),
            "last_import_at": iso(self.last_import_at),
        }


def roundtrip_status(project: Project, everyone: list[Person] | None = None,
                     raters: dict[str, dict[str, int]] | None = None) -> list[RoundTripRow]:
    """Per annotator (by name): cases assigned, bundled, returned, and the latest dates.
    ``everyone`` and ``raters``: the project's people (:func:`people`) and its rater
    counters (:func:`counts.rater_states`) as the caller read them (the desk, which shows
    both beside these rows)."""
    require_curator_side(project, "the round-trip view")
    rows: list[RoundTripRow] = []
    with project.read() as session:
        users = [u for u in (people(session) if everyone is None else everyone)
                 if u.takes_work]
        # Cases assigned per annotator from the project counters (store.counts); the case
        # ids are read only for someone with bundles or packages, to match them against.
        if raters is None:
            raters = counts.rater_states(counts.read(session.connection(), prefix="rater:"))
        assigned_to = {rater: sum(states.values()) for rater, states in raters.items()}
        # Every bundle and package in one read each, not two queries per annotator.
        bundles_of: dict[Any, list[SyncBundle]] = defaultdict(list)
        for bundle in session.scalars(select(SyncBundle)):
            bundles_of[bundle.annotator_id].append(bundle)
        packages_of: dict[Any, list[SyncPackage]] = defaultdict(list)
        for package in session.scalars(select(SyncPackage)):
            packages_of[package.annotator_id].append(package)
        for user in users:
            bundles = bundles_of.get(user.id, [])
            packages = packages_of.get(user.id, [])
            if not bundles and not packages:  # most people at a team store: nothing to match
                rows.append(RoundTripRow(user.name, assigned_to.get(counts.hexid(user.id), 0),
                                         0, 0, 0, None, None, None))
                continue
            # Matched against the case ids assigned now, read only for these people.
            assigned = set(session.scalars(
                select(Case.case_id).join(Annotation, Annotation.case_pk == Case.id)
                .where(Annotation.annotator_id == user.id, Annotation.withdrawn_at.is_(None))))
            bundled = {c for b in bundles for c in b.case_ids}
            returned = {c for p in packages for c in (p.outcome or {}).get("added", [])}
            rows.append(
                RoundTripRow(
                    annotator=user.name,
                    assigned=len(assigned),
                    bundled=len(bundled & assigned),
                    returned=len(returned & assigned),
                    packages=len(packages),
                    last_bundle_at=max((b.created_at for b in bundles), default=None),
                    last_package_at=max((p.created_at for p in packages), default=None),
                    last_import_at=max((p.imported_at for p in packages), default=None),
                )
            )
    return rows
