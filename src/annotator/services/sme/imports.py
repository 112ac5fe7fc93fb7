"""``sme-import`` (benchmark specifications) and ``sme-items`` (review items).

Both read and check every file before writing anything; any error rejects the whole
import (every problem listed), so an import never half-applies. A changed benchmark keeps
its verdicts and sends those given against other criteria or another scale to re-check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.errors import AnnotatorError
from annotator.services.rating import reopen_work
from annotator.services.sme.review import benchmark_of
from annotator.services.users import require
from annotator.sme.items import ItemProblem, ReviewItem, read_items
from annotator.sme.lint import Problem, lint
from annotator.sme.spec import REVIEWED, Benchmark
from annotator.sme.verdict import check_score
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import (
    SmeAdjudication,
    SmeBenchmark,
    SmeItem,
    SmeTask,
    SmeVerdict,
    utcnow,
)


class ImportRejected(AnnotatorError):
    """Files with errors: nothing was written. ``lines`` lists every problem."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(f"nothing imported: {len(lines)} problem(s)\n" + "\n".join(lines))
        self.lines = lines


@dataclass
class SpecImportReport:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # "A-NEG1 v2"
    unchanged: list[str] = field(default_factory=list)
    rechecks: int = 0  # verdicts sent back for re-check
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"warning: {w}" for w in self.warnings]
        out += [f"added {c}" for c in self.added]
        out += [f"changed {c}" for c in self.changed]
        if self.unchanged:
            out.append(f"unchanged: {', '.join(self.unchanged)}")
        if self.rechecks:
            out.append(f"{self.rechecks} verdict(s) marked needs_recheck")
        return out


@dataclass
class ItemImportReport:
    added: int = 0
    unchanged: int = 0
    tasks: int = 0

    def lines(self) -> list[str]:
        return [
            f"{self.added} item(s) added ({self.tasks} review task(s)), {self.unchanged} unchanged"
        ]


def _stored(session: Session) -> dict[str, SmeBenchmark]:
    return {b.code: b for b in session.scalars(select(SmeBenchmark))}


def lint_against_project(project: Project, paths: list[Path]) -> list[Problem]:
    """The checks of ``sme-import`` without importing (weights include the project's)."""
    with project.read() as session:
        others = [benchmark_of(b) for b in _stored(session).values()]
    return lint(paths, others).problems


def import_benchmarks(project: Project, actor: str, paths: list[Path]) -> SpecImportReport:
    """Import benchmark YAML; ImportRejected (nothing written) when any file has an error."""
    report = SpecImportReport()
    with project.tx() as session:
        require(session, actor, Action.IMPORT_SME)
        stored = _stored(session)
        result = lint(paths, [benchmark_of(b) for b in stored.values()])
        if result.errors:
            raise ImportRejected([str(p) for p in result.errors])
        report.warnings = [str(p) for p in result.warnings]
        done: set[str] = set()
        for benchmark, doc in result.benchmarks:
            if benchmark.code in done:
                continue
            done.add(benchmark.code)
            row = stored.get(benchmark.code)
            if row is None:
                _add(session, actor, benchmark, doc.file)
                report.added.append(benchmark.code)
            elif row.content_hash == benchmark.content_hash():
                report.unchanged.append(benchmark.code)
            else:
                report.rechecks += _change(session, actor, row, benchmark, doc.file)
                report.changed.append(f"{benchmark.code} v{row.version}")
    return report


def _add(session: Session, actor: str, benchmark: Benchmark, source: str) -> None:
    session.add(
        SmeBenchmark(
            code=benchmark.code,
            parent_rubric=benchmark.parent_rubric,
            evaluator_type=benchmark.evaluator_type,
            version=1,
            content=benchmark.model_dump(mode="json"),
            content_hash=benchmark.content_hash(),
            source_file=Path(source).name,
            imported_by=actor,
        )
    )
    record(
        session,
        actor,
        "sme_benchmark_imported",
        key=benchmark.code,
        after={"version": 1, "content": benchmark.model_dump(mode="json")},
        file=Path(source).name,
    )


def _change(
    session: Session, actor: str, row: SmeBenchmark, benchmark: Benchmark, source: str
) -> int:
    """Store the new version; verdicts given against changed criteria or scale: re-check."""
    old = benchmark_of(row)
    basis_changed = old.review_basis() != benchmark.review_basis()
    before = {"version": row.version, "content": row.content}
    row.version += 1
    row.content = benchmark.model_dump(mode="json")
    row.content_hash = benchmark.content_hash()
    row.parent_rubric = benchmark.parent_rubric
    row.evaluator_type = benchmark.evaluator_type
    row.source_file = Path(source).name
    row.imported_at = utcnow()
    row.imported_by = actor
    record(
        session,
        actor,
        "sme_benchmark_changed",
        key=benchmark.code,
        before=before,
        after={"version": row.version, "content": row.content},
        file=Path(source).name,
        criteria_or_scale_changed=basis_changed,
    )
    if not basis_changed:
        return 0
    verdicts = session.scalars(
        select(SmeVerdict)
        .join(SmeTask, SmeTask.id == SmeVerdict.task_id)
        .where(SmeTask.benchmark_id == row.id, SmeVerdict.state != "assigned")
        .with_for_update()
    ).all()
    tasks = select(SmeTask.id).where(SmeTask.benchmark_id == row.id)
    decisions = session.scalars(
        select(SmeAdjudication).where(
            SmeAdjudication.task_id.in_(tasks), SmeAdjudication.superseded.is_(False)
        )
    ).all()
    for decision in decisions:
        decision.superseded = True  # decided under the old criteria: decided again if needed
        record(
            session,
            actor,
            "sme_adjudication_superseded",
            key=decision.key,
            before=decision.value,
            task=str(decision.task_id),
            benchmark=benchmark.code,
        )
    for verdict in verdicts:
        reopen_work(verdict, recheck=True)  # kept fields; counted again once resubmitted
        record(session, actor, "sme_recheck", key=benchmark.code,
               after={"benchmark_version": row.version}, task=str(verdict.task_id),
               verdict=str(verdict.id))
    return len(verdicts)


def _item_problems(
    item: ReviewItem, file: str, line: int, stored: dict[str, SmeBenchmark]
) -> list[ItemProblem]:
    out = []
    for code in item.benchmarks:
        row = stored.get(code)
        if row is None:
            out.append(ItemProblem(file, line, item.item_id, f"unknown benchmark {code}"))
            continue
        if row.evaluator_type not in REVIEWED:
            out.append(
                ItemProblem(
                    file,
                    line,
                    item.item_id,
                    f"benchmark {code} is evaluated by {row.evaluator_type}, not reviewed by SMEs",
                )
            )
            continue
        automated = item.automated_for(code)
        if automated is not None and row.evaluator_type != "hybrid":
            out.append(
                ItemProblem(
                    file, line, item.item_id, f"automated verdict for {code}, which is not hybrid"
                )
            )
        elif automated is not None and automated.score is not None:
            try:
                check_score(benchmark_of(row), automated.score)
            except AnnotatorError as exc:
                out.append(ItemProblem(file, line, item.item_id, f"automated {exc}"))
    return out


def import_items(project: Project, actor: str, paths: list[Path]) -> ItemImportReport:
    """Import review items; ImportRejected (nothing written) when any item is bad."""
    read = read_items(paths)
    report = ItemImportReport()
    with project.tx() as session:
        require(session, actor, Action.IMPORT_SME)
        stored = _stored(session)
        existing = {i.item_id: i for i in session.scalars(select(SmeItem))}
        problems = list(read.problems)
        fresh: list[tuple[ReviewItem, str]] = []
        for item, file, line in read.items:
            problems += _item_problems(item, file, line, stored)
            old = existing.get(item.item_id)
            if old is None:
                fresh.append((item, file))
            elif old.content_hash != item.content_hash():
                problems.append(
                    ItemProblem(file, line, item.item_id, "already imported with other content")
                )
            else:
                report.unchanged += 1
        if problems:
            problems.sort(key=lambda p: (p.file, p.line))
            raise ImportRejected([str(p) for p in problems])
        position = session.scalar(select(func.max(SmeItem.position))) or 0
        for item, file in fresh:
            position += 1
            row = SmeItem(
                item_id=item.item_id,
                case_ref=item.case_id,
                position=position,
                test_case=item.input,
                ground_truth=item.ground_truth,
                output=item.output,
                system=item.system,
                run=item.run,
                content_hash=item.content_hash(),
                source_file=Path(file).name,
                imported_by=actor,
            )
            session.add(row)
            session.flush()
            for code in item.benchmarks:
                automated = item.automated_for(code)
                session.add(
                    SmeTask(
                        item_pk=row.id,
                        benchmark_id=stored[code].id,
                        automated=None
                        if automated is None
                        else automated.model_dump(exclude_none=True),
                    )
                )
                report.tasks += 1
            record(session, actor, "sme_item_imported", key=item.item_id,
                   after={"benchmarks": item.benchmarks}, file=Path(file).name)
            report.added += 1
    return report
