"""``judge-import``: scoring-core runs in, one review item per (run, case).

Every file is read and checked before anything is written; the whole import is one
transaction. The same run (same file content) imported again is a no-op.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, select

from annotator.domain.permissions import Action
from annotator.judging.runfile import RunFile, load_run
from annotator.judging.sheet import from_mode
from annotator.services.users import require
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Case, JudgedRun, JudgeItem, JudgeModeScore


@dataclass
class JudgeImportReport:
    imported: list[str] = field(default_factory=list)  # target models
    unchanged: list[str] = field(default_factory=list)
    items: int = 0
    missing: list[str] = field(default_factory=list)  # "model case: mode failed (error)"

    def lines(self) -> list[str]:
        out = [f"imported {m}" for m in self.imported]
        out += [f"already imported {m} (nothing changed)" for m in self.unchanged]
        out += [f"judge missing: {m}" for m in self.missing]
        out.append(f"{self.items} review item(s) added")
        return out


def _missing(run: RunFile) -> list[dict[str, str]]:
    out = []
    for case in run.case_results:
        for mode, error in case.judge.errors.items():
            if mode not in case.judge.by_mode:
                out.append({"case_id": case.case_id, "mode": mode, "error": str(error)[:200]})
    return out


def import_runs(project: Project, actor: str, paths: list[Path]) -> JudgeImportReport:
    """Import judged runs; refusals raise before anything is written."""
    loaded = [(path, *load_run(path)) for path in paths]
    report = JudgeImportReport()
    with project.tx() as session:
        require(session, actor, Action.IMPORT_JUDGED)
        start = session.scalar(select(func.count()).select_from(JudgeItem)) or 0
        fresh: list[tuple[Path, RunFile, str]] = []
        for path, run, raw in loaded:
            digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()
            if digest in {d for _, _, d in fresh} or session.scalar(
                select(JudgedRun.id).where(JudgedRun.run_hash == digest)
            ):
                report.unchanged.append(run.run_config.target_model)
            else:
                fresh.append((path, run, digest))
        # Shuffled (seeded by the runs) so one model's outputs are not consecutive: the
        # physician sees "output 3 of 12" and cannot tell the outputs of one model apart.
        count = sum(len(run.case_results) for _, run, _ in fresh)
        positions = list(range(start + 1, start + count + 1))
        random.Random("".join(d for _, _, d in fresh)).shuffle(positions)
        for path, run, digest in fresh:
            model = run.run_config.target_model
            missing = _missing(run)
            row = JudgedRun(
                run_hash=digest,
                target_model=model,
                judge_model=run.run_config.judge_model or "",
                modes=sorted({m for c in run.case_results for m in c.judge.by_mode}),
                code_version=run.code_version,
                missing=missing,
                source_file=path.name,
                imported_by=actor,
            )
            session.add(row)
            session.flush()
            for case in run.case_results:
                position = positions.pop()
                case_pk = session.scalar(select(Case.id).where(Case.case_id == case.case_id))
                item = JudgeItem(
                    run_id=row.id,
                    case_id=case.case_id,
                    case_pk=case_pk,
                    position=position,
                    case_payload=run.case_payload(case),
                    model_payload=run.model_payload(case),
                )
                session.add(item)
                session.flush()
                for mode, result in case.judge.by_mode.items():
                    scores, reasons = from_mode(result)
                    session.add(
                        JudgeModeScore(item_id=item.id, mode=mode, scores=scores, reasons=reasons)
                    )
                report.items += 1
            record(
                session,
                actor,
                "judge_run_imported",
                after={"target_model": model, "cases": len(run.case_results)},
                file=path.name,
                missing=missing,
            )
            report.imported.append(model)
            report.missing += [f"{model} {m['case_id']}: {m['mode']} failed" for m in missing]
    return report
