"""``users`` and ``assign``: who works on the project and on which cases."""

from __future__ import annotations

import argparse
from typing import Any

from annotator.cli._shared import (
    actor_of,
    add_command,
    new_password,
    print_json,
    project_of,
)
from annotator.cli.quality import add_repeat_flags, run_repeats
from annotator.domain.states import ROLES
from annotator.errors import AnnotatorError
from annotator.services.assignments import assign, plan_assignment, reassign
from annotator.services.rating.repeats import check_rate
from annotator.services.users import (
    add_user,
    administers_store,
    change_roles,
    list_users,
    reset_password,
    set_password,
)


def register(subparsers: Any) -> None:
    """Add ``users`` and ``assign`` to the ``annotator`` parser."""
    p = add_command(subparsers, "users", "add or list users, change their roles, set passwords",
                    cmd_users)
    users_sub = p.add_subparsers(dest="users_command", required=True)
    ua = users_sub.add_parser("add", help="add a user or give them more roles")
    ua.add_argument("name")
    ua.add_argument(
        "--role", nargs="+", required=True, choices=["annotator", "adjudicator", "curator"]
    )
    up = users_sub.add_parser(
        "passwd", help="set a user's team store password",
        description="Set a user's team store password. Through the store's administrative URL"
        " (a database role that owns its tables) no login is needed: the first password, or"
        " a locked-out curator's.")
    up.add_argument("name")
    up.add_argument("--new-password-file", metavar="FILE",
                    help="read the new password from FILE (else asked at the terminal)")
    ur = users_sub.add_parser(
        "role", help="give a user roles or take them away (the last curator stays one)",
        description="Give a user roles (--add) or take them away (--remove). A user keeps at"
        " least one role and the project keeps at least one curator.")
    ur.add_argument("name")
    ur.add_argument("--add", nargs="+", default=[], metavar="ROLE", choices=list(ROLES))
    ur.add_argument("--remove", nargs="+", default=[], metavar="ROLE", choices=list(ROLES))
    ul = users_sub.add_parser("list", help="list users and their roles")
    ul.add_argument("--json", action="store_true")

    p = add_command(subparsers, "assign", "assign cases to annotators (balanced)", cmd_assign)
    p.add_argument("--per-case", type=int, default=2, metavar="K")
    p.add_argument(
        "--quota",
        action="append",
        default=[],
        metavar="NAME=N",
        help="at most N active cases for NAME (repeatable)",
    )
    p.add_argument("--reassign-from", metavar="NAME", help="move NAME's open cases")
    p.add_argument("--to", metavar="NAME", help="with --reassign-from: the new annotator")
    p.add_argument("--dry-run", action="store_true",
                   help="print the balance it would make (per annotator) without writing")
    add_repeat_flags(p)


def cmd_users(args: argparse.Namespace) -> int:
    project = project_of(args)
    if args.users_command == "add":
        info = add_user(project, actor_of(project, args), args.name, args.role)
        print(f"{info.name}: {', '.join(info.roles)}")
        return 0
    if args.users_command == "role":
        info = change_roles(project, actor_of(project, args), args.name, args.add, args.remove)
        print(f"{info.name}: {', '.join(info.roles)}")
        return 0
    if args.users_command == "passwd":
        if administers_store(project):  # the administrative URL: no login (recovery path)
            reset_password(project, args.name, new_password(args))
        else:
            set_password(project, actor_of(project, args), args.name, new_password(args))
        print(f"{args.name}: password set")
        return 0
    users = list_users(project)
    if args.json:
        print_json([{"name": u.name, "roles": u.roles, "db_role": u.db_role} for u in users])
    else:
        for u in users:
            print(f"{u.name}\t{', '.join(u.roles)}")
    return 0


def _quotas(values: list[str]) -> dict[str, int]:
    quotas: dict[str, int] = {}
    for value in values:
        name, sep, number = value.rpartition("=")
        if not sep or not number.isdigit():
            raise AnnotatorError(f"--quota expects NAME=NUMBER, got {value!r}")
        quotas[name] = int(number)
    return quotas


def cmd_assign(args: argparse.Namespace) -> int:
    project = project_of(args)
    actor = actor_of(project, args)
    if args.dry_run:
        if args.reassign_from:
            raise AnnotatorError("--dry-run previews a balanced assignment, not --reassign-from")
        plan = plan_assignment(project, actor, args.per_case, quotas=_quotas(args.quota))
        print("\n".join(plan.lines()))
        print("dry run: nothing was written")
        return 0
    check_rate(args.repeat_rate, args.repeat_after)
    if args.reassign_from:
        report = reassign(project, actor, args.reassign_from, args.to)
    else:
        report = assign(project, actor, args.per_case, quotas=_quotas(args.quota))
    print(f"{report.count} assignment(s) made")
    for case_id, missing in report.short:
        print(f"{case_id}: {missing} annotator(s) short (not enough annotators or quota)")
    run_repeats(args, "case")
    return 0
