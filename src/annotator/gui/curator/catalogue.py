"""Every curator command the app offers, as data: fields, command line, service call.

A :class:`CuratorCommand` names its action id (``project.*``: the desk shows a button for
each and the window's Project menu lists them), the permission it needs, its fields, the
``annotator`` arguments that do the same (``argv``) and ``run``: the very service call of
that command, returning the lines the command prints. ``run`` runs on a worker thread with a
:class:`~annotator.tasks.TaskState`; ``table`` (a quick read on the GUI thread) is what the
dialog shows before Run: the users, the balance an assignment would make
(``assign --dry-run``), the states a repair would move (``repair --dry-run``).
No rule lives here: each function only calls a service and words its answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.domain.permissions import Action
from annotator.errors import AnnotatorError, ValidationError
from annotator.gui.context import GuiContext
from annotator.gui.curator.fields import (
    CHECK,
    FILE,
    FILES,
    FOLDER,
    NUMBER,
    PASSWORD,
    ROLES_KIND,
    SAVE,
    USER,
    FieldSpec,
)
from annotator.store.project import Project
from annotator.tasks import Cancelled, TaskState

Values = dict[str, Any]
Table = tuple[tuple[str, ...], list[tuple[str, ...]], str]  # headers, rows, a note under it


@dataclass(frozen=True)
class Outcome:
    """What a command said: its lines, whether it failed or was cancelled, a file to open."""

    lines: list[str]
    error: bool = False
    cancelled: bool = False
    opens: Path | None = None


@dataclass(frozen=True)
class CuratorCommand:
    id: str  # the action id, "project.import"
    title: str
    intro: str
    action: Action | None
    fields: tuple[FieldSpec, ...]
    argv: Callable[[Values], list[str]]
    run: Callable[[Project, str, Values, TaskState], Outcome]
    button: str = "Run"
    table: Callable[[Project, str, Values], Table] | None = None
    table_title: str = ""
    check: Callable[[Values], str | None] | None = None
    cancelled: Callable[[Cancelled], list[str]] | None = None
    group: str = ""  # the Project menu's submenu


def acting_user(context: GuiContext) -> str:
    """Who acts: the window's user, else who the command line would act as (setup)."""
    from annotator.services.users import resolve_actor

    if context.user:
        return context.user
    assert context.project is not None
    return resolve_actor(context.project, None)


def refusal(context: GuiContext, action: Action | None) -> str | None:
    """Why the window's user may not take ``action`` now (None: they may).

    A project without users is being set up: whoever made it adds its first curator, as
    ``annotator users add`` allows on the command line.
    """
    from annotator.gui.permits import why_not

    if context.project is None:
        return "Open a project first (Project, New or open project)."
    if action is None or (action is Action.MANAGE_USERS and not user_names(context.project)):
        return None
    return why_not(context, action)


def user_names(project: Project) -> list[str]:
    from annotator.services.users import list_users

    return [u.name for u in list_users(project)]


def _users_table(project: Project, _actor: str, _values: Values) -> Table:
    from annotator.services.users import list_users

    users = list_users(project)
    note = "" if users else ("No users yet: add the first curator (you), then the others.")
    return ("user", "roles"), [(u.name, ", ".join(u.roles)) for u in users], note


def _paths(values: Values, key: str) -> list[Path]:
    raw = values[key]
    return [Path(p) for p in (raw if isinstance(raw, list) else [raw]) if str(p)]


def _need(*keys: str) -> Callable[[Values], str | None]:
    def check(values: Values) -> str | None:
        for key in keys:
            if not values[key]:
                return f"Fill in {key.replace('_', ' ')} first."
        return None

    return check


# -- users --------------------------------------------------------------------------------

def _add_user(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.users import add_user

    info = add_user(project, actor, values["name"], values["roles"])
    return Outcome([f"{info.name}: {', '.join(info.roles)}"])


def _change_roles(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.users import change_roles

    info = change_roles(project, actor, values["name"], values["add"], values["remove"])
    return Outcome([f"{info.name}: {', '.join(info.roles)}"])


def _passwd_check(values: Values) -> str | None:
    if not values["name"] or not values["password"]:
        return "Choose the user and type the new password."
    if values["password"] != values["again"]:
        return "The two passwords differ; type them again."
    return None


def _passwd(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.users import administers_store, reset_password, set_password

    if administers_store(project):  # the administrative URL: no login (recovery path)
        reset_password(project, values["name"], values["password"])
    else:
        set_password(project, actor, values["name"], values["password"])
    return Outcome([f"{values['name']}: password set (stored as a salted scrypt hash)"])


def _role_args(values: Values) -> list[str]:
    argv = ["users", "role", values["name"] or "NAME"]
    if values["add"]:
        argv += ["--add", *values["add"]]
    if values["remove"]:
        argv += ["--remove", *values["remove"]]
    return argv


# -- cases --------------------------------------------------------------------------------

def _import(project: Project, actor: str, values: Values, state: TaskState) -> Outcome:
    from annotator.services.import_summary import report_lines
    from annotator.services.imports import import_cases

    report = import_cases(project, actor, _paths(values, "folder"),
                          new_version=values["new_version"],
                          deidentify=not values["keep_identifiers"], task=state)
    return Outcome(report_lines(report), error=report.failed)


def _import_cancelled(exc: Cancelled) -> list[str]:
    from annotator.services.import_summary import report_lines

    return report_lines(exc.partial) if exc.partial is not None else []


def _import_args(values: Values) -> list[str]:
    argv = ["import", values["folder"] or "FOLDER"]
    if values["new_version"]:
        argv.append("--new-version")
    if values["keep_identifiers"]:
        argv.append("--keep-identifiers")
    return argv


def _quota_items(values: Values) -> list[str]:
    """``NAME=N`` items, separated by commas or semicolons (names may hold spaces)."""
    return [item.strip() for item in str(values["quotas"]).replace(";", ",").split(",")
            if item.strip()]


def _quotas(values: Values) -> dict[str, int]:
    quotas: dict[str, int] = {}
    for item in _quota_items(values):
        name, sep, number = item.rpartition("=")
        if not sep or not number.isdigit():
            raise ValidationError(f"a quota is NAME=NUMBER, got {item!r}")
        quotas[name] = int(number)
    return quotas


def _assign_args(values: Values) -> list[str]:
    argv = ["assign", "--per-case", str(values["per_case"])]
    for item in _quota_items(values):
        argv += ["--quota", item]
    return argv


def _plan_table(project: Project, actor: str, values: Values) -> Table:
    from annotator.services.assignments import AssignPlan, plan_assignment

    plan = plan_assignment(project, actor, values["per_case"], quotas=_quotas(values))
    short = "; ".join(f"{case} {n} short" for case, n in plan.short)
    cases = len({case for case, _ in plan.assigned})
    calibration = (f" ({len(plan.calibration)} of them calibration items for raters in "
                   "calibration)" if plan.calibration else "")
    note = (f"Assign would make {len(plan.assigned)} assignment(s) on {cases} case(s)"
            + calibration
            + (f"; not enough annotators or quota for: {short}" if short else "") + ".")
    return AssignPlan.HEADERS, [tuple(row) for row in plan.rows()], note


def _assign(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.assignments import assign

    report = assign(project, actor, values["per_case"], quotas=_quotas(values))
    lines = [f"{report.count} assignment(s) made"]
    lines += [f"{case_id}: {missing} annotator(s) short (not enough annotators or quota)"
              for case_id, missing in report.short]
    return Outcome(lines)


# -- SME review and judged runs -----------------------------------------------------------

def _all_or_nothing(service: Callable[..., Any], what: str) -> Callable[..., Outcome]:
    def call(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
        from annotator.services.sme.imports import ImportRejected

        try:
            report = service(project, actor, _paths(values, "files"))
        except ImportRejected as exc:
            return Outcome([*exc.lines, f"nothing imported: {len(exc.lines)} {what}(s)"],
                           error=True)
        return Outcome(list(report.lines()))

    return call


def _sme_import(project: Project, actor: str, values: Values, state: TaskState) -> Outcome:
    from annotator.services.sme.imports import import_benchmarks

    return _all_or_nothing(import_benchmarks, "error")(project, actor, values, state)


def _sme_items(project: Project, actor: str, values: Values, state: TaskState) -> Outcome:
    from annotator.services.sme.imports import import_items

    return _all_or_nothing(import_items, "problem")(project, actor, values, state)


def _sme_assign(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.sme.review import assign

    return Outcome([f"{assign(project, actor, values['per_item'])} assignment(s) added"])


def _judge_import(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.judging.imports import import_runs

    return Outcome(list(import_runs(project, actor, _paths(values, "files")).lines()))


def _judge_scores(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.judging.sheets import import_scores_csv

    report = import_scores_csv(project, actor, Path(values["file"]))
    lines = [f"{report.rows} row(s) read, {report.submitted} sheet(s) submitted"]
    return Outcome(lines + [f"left as draft: {line}" for line in report.drafts])


def _judge_assign(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.services.judging.scoring import assign

    return Outcome([f"{assign(project, actor, values['per_item'])} assignment(s) added"])


# -- the project as a whole ---------------------------------------------------------------

def _repair_table(project: Project, actor: str, _values: Values) -> Table:
    from annotator.services.repair import repair_case_states

    fixes = repair_case_states(project, actor, dry_run=True)
    note = (f"{len(fixes)} case state(s) to repair (repair --dry-run)." if fixes
            else "Every case state agrees with its annotations: nothing to repair.")
    return ("case", "stored state", "state it should have"), [
        (f.case_id, f.before, f.after) for f in fixes], note


def _repair(project: Project, actor: str, _values: Values, _state: TaskState) -> Outcome:
    from annotator.services.repair import (
        repair_case_states,
        repair_counts,
        repair_queue_keys,
        repair_sme_keys,
    )

    fixes = repair_case_states(project, actor)
    lines = [f"{fix.case_id}: moved from {fix.before} to {fix.after}" for fix in fixes]
    lines.append(f"{len(fixes)} case state(s) repaired")
    drifted = repair_counts(project, actor)
    lines += [f"counter {count.key}: set {count.stored} to {count.actual}" for count in drifted]
    lines.append(f"{len(drifted)} counter(s) repaired")
    keys = repair_queue_keys(project, actor)
    lines += [f"queue key of {key.case_id}: set {key.stored} to {key.actual}" for key in keys]
    lines.append(f"{len(keys)} review queue key(s) repaired")
    sme = repair_sme_keys(project, actor)
    lines += [f"SME task key of {fix.task_id}: set {fix.stored} to {fix.actual}" for fix in sme]
    return Outcome([*lines, f"{len(sme)} SME task key(s) repaired"])


def _backup(project: Project, _actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.store.project import backup_to

    return Outcome([f"backup written to {backup_to(project, Path(values['file']))}"])


def _agreement(project: Project, actor: str, values: Values, _state: TaskState) -> Outcome:
    from annotator.agreement.html_report import write_html
    from annotator.services.agreement import agreement_report

    written = write_html(agreement_report(project, actor), Path(values["file"]))
    return Outcome([f"wrote {written}"], opens=written)  # the report says if it is empty


NAME = FieldSpec("name", "User", USER, tip="the user's name")
FILES_IN = "files"
Run = Callable[[Project, str, Values, TaskState], Outcome]


def _files_import(
    action_id: str, title: str, intro: str, action: Action, field: tuple[str, str],
    command: tuple[str, str], run: Run, group: str,
) -> CuratorCommand:
    """An all-or-nothing import of chosen files: ``field`` is (label, file pattern),
    ``command`` the CLI command and the placeholder shown before a file is chosen."""
    label, pattern = field
    name, placeholder = command
    return CuratorCommand(
        action_id, title, intro, action, (FieldSpec(FILES_IN, label, FILES, pattern=pattern),),
        lambda v: [name, *(v[FILES_IN] or [placeholder])], run,
        button="Import", check=_need(FILES_IN), group=group)


def _assign_items(
    action_id: str, title: str, intro: str, action: Action, label: str, command: str,
    run: Run, group: str,
) -> CuratorCommand:
    """Give every item K reviewers (``command --per-item K``), the least loaded first."""
    return CuratorCommand(
        action_id, title, intro, action, (FieldSpec("per_item", label, NUMBER, 2),),
        lambda v: [command, "--per-item", str(v["per_item"])], run,
        button="Assign", group=group)

COMMANDS: tuple[CuratorCommand, ...] = (
    CuratorCommand(
        "project.users_add", "Add a user", "Add a person with roles, or give a person more "
        "roles. The first user of a new project is its curator (you).",
        Action.MANAGE_USERS,
        (FieldSpec("name", "Name"), FieldSpec("roles", "Roles", ROLES_KIND, ["annotator"])),
        lambda v: ["users", "add", v["name"] or "NAME", "--role", *(v["roles"] or ["ROLE"])],
        _add_user, button="Add user", table=_users_table, table_title="Users of this project",
        check=_need("name", "roles"), group="Users"),
    CuratorCommand(
        "project.users_role", "Change a user's roles", "Give a user roles or take them "
        "away. A user keeps at least one role and the project keeps at least one curator.",
        Action.MANAGE_USERS,
        (NAME, FieldSpec("add", "Add roles", ROLES_KIND), FieldSpec("remove", "Remove roles",
                                                                    ROLES_KIND)),
        _role_args, _change_roles, button="Change roles", table=_users_table,
        table_title="Users of this project", check=_need("name"), group="Users"),
    CuratorCommand(
        "project.users_passwd", "Set a password", "Set a user's login password for a team "
        "store (PostgreSQL). On a team store without passwords the first one is a curator's "
        "own, set through the store's administrative URL. The password is stored as a salted "
        "scrypt hash.", Action.MANAGE_USERS,
        (NAME, FieldSpec("password", "New password", PASSWORD),
         FieldSpec("again", "Again", PASSWORD)),
        lambda v: ["users", "passwd", v["name"] or "NAME"], _passwd, button="Set password",
        table=_users_table, table_title="Users of this project", check=_passwd_check,
        group="Users"),
    CuratorCommand(
        "project.import", "Import draft cases", "Import a folder of draft case files. Each "
        "case goes in whole or not at all; Cancel stops between two cases and keeps those "
        "already stored. The result lists every case and counts every status.",
        Action.IMPORT_CASES,
        (FieldSpec("folder", "Folder", FOLDER),
         FieldSpec("new_version", "", CHECK, False, tip="store a changed, annotated case as a "
                   "new revision (its annotations go back for re-check)"),
         FieldSpec("keep_identifiers", "", CHECK, False, tip="keep identifiers: do not "
                   "de-identify DICOM or strip image metadata (not for laptops)")),
        _import_args, _import, button="Import", check=_need("folder"),
        cancelled=_import_cancelled, group="Cases"),
    CuratorCommand(
        "project.assign", "Assign cases", "Give every case being annotated K annotators, the "
        "least loaded first; a quota caps a person's active cases. The table is the balance "
        "Assign would make (annotator assign --dry-run); nothing is written until Assign.",
        Action.ASSIGN_CASES,
        (FieldSpec("per_case", "Annotators per case", NUMBER, 2),
         FieldSpec("quotas", "Quotas",
                   tip="NAME=N, separated by commas: at most N active cases for NAME")),
        _assign_args, _assign, button="Assign", table=_plan_table,
        table_title="Preview: the balance Assign would make", group="Cases"),
    _files_import(
        "project.sme_import", "Import SME benchmark specifications", "Import benchmark "
        "specifications (YAML). All or nothing: one problem and nothing is imported.",
        Action.IMPORT_SME, ("Files", "Benchmarks (*.yaml *.yml);;All (*)"),
        ("sme-import", "FILE.yaml"), _sme_import, "SME review"),
    _files_import(
        "project.sme_items", "Import SME review items", "Import the outputs SMEs review "
        "(JSON or JSONL). All or nothing.", Action.IMPORT_SME,
        ("Files", "Items (*.json *.jsonl);;All (*)"), ("sme-items", "ITEMS.jsonl"),
        _sme_items, "SME review"),
    _assign_items(
        "project.sme_assign", "Assign SME review items", "Give every SME review item K SMEs, "
        "the least loaded first.", Action.ASSIGN_SME, "SMEs per item", "sme-assign",
        _sme_assign, "SME review"),
    _files_import(
        "project.judge_import", "Import judged runs", "Import scoring-core "
        "benchmark_full.json runs: the LLM judges' scores that physicians score too.",
        Action.IMPORT_JUDGED, ("Runs", "Runs (*.json);;All (*)"), ("judge-import", "RUN.json"),
        _judge_import, "Judge scoring"),
    CuratorCommand(
        "project.judge_scores", "Import physicians' sheets", "Import physicians' scores "
        "from a spreadsheet (CSV).", Action.IMPORT_SCORE_SHEETS,
        (FieldSpec("file", "Sheet", FILE, pattern="Spreadsheets (*.csv);;All (*)"),),
        lambda v: ["judge-scores", v["file"] or "FILE.csv"], _judge_scores,
        button="Import", check=_need("file"), group="Judge scoring"),
    _assign_items(
        "project.judge_assign", "Assign judged outputs", "Give every judged output K "
        "physicians, the least loaded first.", Action.ASSIGN_JUDGED, "Physicians per output",
        "judge-assign", _judge_assign, "Judge scoring"),
    CuratorCommand(
        "project.repair", "Repair case states", "Recompute each case's state from its "
        "annotations. The table is the dry run (annotator repair --dry-run): what Repair "
        "would move.", Action.REPAIR, (), lambda _v: ["repair"], _repair, button="Repair",
        table=_repair_table, table_title="Dry run: the states Repair would fix",
        group="Project"),
    CuratorCommand(
        "project.backup", "Back up the project", "Write a consistent copy of the project "
        "database (SQLite) while people keep working.", Action.BACKUP,
        (FieldSpec("file", "Backup file", SAVE, pattern="SQLite (*.sqlite);;All (*)"),),
        lambda v: ["backup", v["file"] or "FILE.sqlite"], _backup, button="Back up",
        check=_need("file"), group="Project"),
    CuratorCommand(
        "project.agreement", "Agreement report", "Write the inter-annotator agreement report "
        "as HTML (tables and charts), then open it.", Action.READ_AGREEMENT,
        (FieldSpec("file", "HTML file", SAVE, pattern="HTML (*.html);;All (*)"),),
        lambda v: ["agreement", "--html", v["file"] or "REPORT.html"], _agreement,
        button="Write report", check=_need("file"), group="Project"),
)
BY_ID = {command.id: command for command in COMMANDS}


def named(action_id: str) -> CuratorCommand:
    try:
        return BY_ID[action_id]
    except KeyError:
        raise AnnotatorError(f"no curator action {action_id!r}") from None
