"""Checking the history's hash chain: the whole walk, and a release's published head.

Both act as nobody: they show row numbers, actions, actors and times, never a label.
"""

from __future__ import annotations

from pathlib import Path

from annotator.export.validate import release_history_head
from annotator.store.chain_audit import ChainReport, contains, walk
from annotator.store.project import Project


def verify_history(project: Project) -> ChainReport:
    """Walk the whole chain in one snapshot; the report names the first problem, if any."""
    with project.read() as session:
        return walk(session)


def release_head_problems(project: Project, folder: Path) -> list[str]:
    """Whether the project's history still contains the head a release published."""
    published = release_history_head(folder)
    if published is None:
        return [f"{folder}: the card and croissant.json state no (or no single) history chain"
                " head to check against the project"]
    with project.read() as session:
        report = walk(session)
        present = contains(session, published)
    problems = []
    if not present:
        problems.append(f"the project's history no longer contains the release's head"
                        f" {published}: rows up to it were rewritten or removed")
    if report.problem is not None:
        problems.append(f"the project's history chain is broken: {report.problem.message}")
    return problems
