"""Checking the history's hash chain: the whole walk, and a release's published head.

Both show row numbers, actions, actors and times, never a label. On a walled team store they
act as the connection's person and need a role that reads the whole history.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from annotator.errors import PermissionDenied
from annotator.export.validate import release_history_head
from annotator.store.chain_audit import ChainReport, contains, walk
from annotator.store.db_roles import reads_others
from annotator.store.project import Project


def verify_history(project: Project) -> ChainReport:
    """Walk the whole chain in one snapshot; the report names the first problem, if any."""
    with project.read() as session:
        _require_whole_history(session)
        return walk(session)


def _require_whole_history(session: Session) -> None:
    """On a walled store an annotator's role reads only their own history rows: a walk of
    those would call every gap a removal, so it is refused with the reason."""
    if not reads_others(session):
        raise PermissionDenied("checking the history chain reads every row of the history:"
                               " it needs the curator or adjudicator role (or the store's"
                               " administrative URL)")


def release_head_problems(project: Project, folder: Path) -> list[str]:
    """Whether the project's history still contains the head a release published."""
    published = release_history_head(folder)
    if published is None:
        return [f"{folder}: the card and croissant.json state no (or no single) history chain"
                " head to check against the project"]
    with project.read() as session:
        _require_whole_history(session)
        report = walk(session)
        present = contains(session, published)
    problems = []
    if not present:
        problems.append(f"the project's history no longer contains the release's head"
                        f" {published}: rows up to it were rewritten or removed")
    if report.problem is not None:
        problems.append(f"the project's history chain is broken: {report.problem.message}")
    return problems
