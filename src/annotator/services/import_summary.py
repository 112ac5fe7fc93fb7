"""The words of an import report: a line per case, a closing line, and the details on request.

The command line prints these (``annotator import``); a curator reads one line per case and a
closing line that counts every status and names the cases that need a fix. What
de-identification did to each tag (hundreds of lines for a folder of DICOM cases) is shown
only when asked for, each line saying what happened: replaced, shifted or removed.
"""

from __future__ import annotations

import re

from annotator.services.imports import CaseOutcome, ImportReport

STATUSES = ("added", "updated", "new_version", "unchanged", "refused", "rejected")
CHANGE_KINDS = ("removed", "replaced", "shifted")


_ASIDE = re.compile(r"\([^)]*\)")  # "(their segments removed)" explains, it is not the change
_KIND = re.compile(r"\b(removed|replaced|shifted)\b")


def change_kind(line: str) -> str:
    """What a de-identification line says happened: removed, replaced, shifted, or other."""
    # "X replaced", "SeriesDescription replaced by 'T1'", "N private tags removed"
    found = _KIND.search(_ASIDE.sub("", line))
    return found.group(1) if found else "other"  # e.g. "preamble zeroed", "frames decoded"


def deidentified_counts(lines: list[str]) -> dict[str, int]:
    """How many de-identification lines are each kind (every kind present, zeros too)."""
    counts = dict.fromkeys((*CHANGE_KINDS, "other"), 0)
    for line in lines:
        counts[change_kind(line)] += 1
    return counts


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def case_line(outcome: CaseOutcome) -> str:
    """One line: status, case, file, and what else there is to know, counted."""
    where = f" [{outcome.field}]" if outcome.field else ""
    line = f"{outcome.status:<11} {outcome.case_id or '-'}  {outcome.file}{where}"
    if outcome.reason:
        line += f": {outcome.reason}"
    notes = []
    if outcome.needs_fix:
        notes.append(f"{len(outcome.needs_fix)} to fix")
    if outcome.warnings:
        notes.append(_plural(len(outcome.warnings), "warning"))
    if outcome.normalised:
        notes.append("normalised " + ", ".join(outcome.normalised))
    if outcome.removed:
        counts = deidentified_counts(outcome.removed)
        said = [f"{n} {kind}" for kind, n in counts.items() if n and kind != "other"]
        notes.append("de-identified: " + (", ".join(said) or _plural(counts["other"], "change")))
    if outcome.flagged_images:
        notes.append(f"{_plural(outcome.flagged_images, 'image')} with possible burned-in text")
    return line + (f"  ({'; '.join(notes)})" if notes else "")


def detail_lines(outcome: CaseOutcome) -> list[str]:
    """Everything behind a case's counts, for ``--verbose``."""
    lines = [f"    needs fix: {text}" for text in outcome.needs_fix]
    lines += [f"    warning:   {text}" for text in outcome.warnings]
    lines += [f"    normalised {key} (was {was!r})" for key, was in outcome.normalised.items()]
    lines += [f"    de-identified: {text}" for text in outcome.removed]
    return lines


def closing_line(report: ImportReport) -> str:
    """Every status counted (zeros too) and the cases that need a fix, named."""
    if not report.outcomes:
        return "nothing to import"
    counts = ", ".join(f"{report.count(s)} {s.replace('_', ' ')}" for s in STATUSES)
    to_fix = [o.case_id or o.file for o in report.outcomes if o.needs_fix]
    fix = (f"{len(to_fix)} need{'s' if len(to_fix) == 1 else ''} a fix: {', '.join(to_fix)}"
           " (details: --verbose)" if to_fix else "none needs a fix")
    line = f"{_plural(len(report.outcomes), 'case')}: {counts}; {fix}"
    if report.changed_nothing and not report.failed:
        line += "; nothing changed: every case was already imported"
    flagged = sum(o.flagged_images for o in report.outcomes)
    if flagged:
        cases = sum(1 for o in report.outcomes if o.flagged_images)
        line += (f"; {_plural(flagged, 'image')} in {_plural(cases, 'case')} may show burned-in"
                 " text: review them (annotator redact --list) before export")
    return line


def report_lines(report: ImportReport, verbose: bool = False) -> list[str]:
    """The whole printed report: a line per case (with details if ``verbose``), then the close."""
    lines: list[str] = []
    for outcome in report.outcomes:
        lines.append(case_line(outcome))
        if verbose:
            lines += detail_lines(outcome)
    lines.append(closing_line(report))
    return lines
