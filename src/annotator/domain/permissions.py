"""Who may do what: the one table that services and the GUI both ask.

Services refuse an action the actor's roles do not allow (PermissionDenied with the message
of :func:`refusal`); the GUI asks :func:`may` first, so an action a role cannot take is
disabled with a tooltip naming the role it needs, instead of being refused after the user
typed their work. Services ask through one helper (``services.users.require``), and no other
module compares roles (``tests/test_one_rule_source.py``). Pages are shown to the roles that
can use them (:func:`pages_for`), and each role lands on its own page (:func:`landing_page`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from annotator.domain.states import Role


class Action(StrEnum):
    """Every action that needs a role (annotating one's own assigned work needs none)."""

    MANAGE_USERS = "manage_users"
    IMPORT_CASES = "import_cases"
    ASSIGN_CASES = "assign_cases"
    BUNDLE = "bundle"
    IMPORT_PACKAGE = "import_package"
    REPAIR = "repair"
    BACKUP = "backup"
    READ_AGREEMENT = "read_agreement"
    EDIT_CARD = "edit_card"
    EXPORT = "export"
    IMPORT_SME = "import_sme"
    ASSIGN_SME = "assign_sme"
    IMPORT_JUDGED = "import_judged"
    ASSIGN_JUDGED = "assign_judged"
    IMPORT_SCORE_SHEETS = "import_score_sheets"
    ADJUDICATE_CASES = "adjudicate_cases"
    ADJUDICATE_SME = "adjudicate_sme"
    ADJUDICATE_JUDGED = "adjudicate_judged"
    READ_OTHERS_WORK = "read_others_work"
    VIEW_DESK = "view_desk"
    SET_STUCK_LIMIT = "set_stuck_limit"
    ASSIGN_REPEATS = "assign_repeats"
    MANAGE_QUALITY = "manage_quality"
    READ_QUALITY = "read_quality"
    REVIEW_IMAGES = "review_images"
    SPLIT_REVIEW = "split_review"
    TAKE_ASSIGNED_WORK = "take_assigned_work"
    COMPARE_SYSTEMS = "compare_systems"


@dataclass(frozen=True)
class Rule:
    """The roles any one of which allows an action, and how a refusal names the action."""

    roles: frozenset[Role]
    doing: str


_ANNOTATOR = frozenset({Role.ANNOTATOR})
_CURATOR = frozenset({Role.CURATOR})
_ADJUDICATOR = frozenset({Role.ADJUDICATOR})
_SENIOR = frozenset({Role.ADJUDICATOR, Role.CURATOR})

RULES: dict[Action, Rule] = {
    Action.MANAGE_USERS: Rule(_CURATOR, "managing users"),
    Action.IMPORT_CASES: Rule(_CURATOR, "importing cases"),
    Action.ASSIGN_CASES: Rule(_CURATOR, "assigning cases"),
    Action.BUNDLE: Rule(_CURATOR, "bundling work for an annotator"),
    Action.IMPORT_PACKAGE: Rule(_CURATOR, "importing packages"),
    Action.REPAIR: Rule(_CURATOR, "repairing case states"),
    Action.BACKUP: Rule(_CURATOR, "backing up the project"),
    Action.READ_AGREEMENT: Rule(_CURATOR, "reading the agreement report"),
    Action.EDIT_CARD: Rule(_CURATOR, "editing the benchmark card"),
    Action.EXPORT: Rule(_CURATOR, "exporting a release"),
    Action.IMPORT_SME: Rule(_CURATOR, "importing SME benchmarks and items"),
    Action.ASSIGN_SME: Rule(_CURATOR, "assigning SME review items"),
    Action.IMPORT_JUDGED: Rule(_CURATOR, "importing judged runs"),
    Action.ASSIGN_JUDGED: Rule(_CURATOR, "assigning judged outputs"),
    Action.IMPORT_SCORE_SHEETS: Rule(_CURATOR, "importing spreadsheet scores"),
    Action.ADJUDICATE_CASES: Rule(_ADJUDICATOR, "adjudicating cases"),
    Action.ADJUDICATE_SME: Rule(_ADJUDICATOR, "adjudicating SME verdicts"),
    Action.ADJUDICATE_JUDGED: Rule(_ADJUDICATOR, "adjudicating judged outputs"),
    Action.READ_OTHERS_WORK: Rule(_SENIOR, "reading other annotators' work"),
    Action.VIEW_DESK: Rule(_SENIOR, "viewing the curator's desk"),
    Action.SET_STUCK_LIMIT: Rule(_CURATOR, "setting the desk's stuck limit"),
    Action.ASSIGN_REPEATS: Rule(_CURATOR, "assigning hidden repeats"),
    Action.MANAGE_QUALITY: Rule(_CURATOR, "managing calibration, gold items and quality settings"),
    Action.READ_QUALITY: Rule(_SENIOR, "reading the quality report"),
    Action.REVIEW_IMAGES: Rule(_CURATOR, "reviewing images for burned-in text"),
    Action.SPLIT_REVIEW: Rule(_SENIOR, "splitting review work"),
    # Not an act of the actor but of the person given work: cases, bundles, SME items and
    # judged outputs go to annotators, and the agreement and round-trip views count them.
    Action.TAKE_ASSIGNED_WORK: Rule(_ANNOTATOR, "being given work to annotate or score"),
    # SMEs review blind to the system under review: naming systems side by side is seniors'.
    Action.COMPARE_SYSTEMS: Rule(_SENIOR, "comparing AI systems on SME verdicts"),
}
# Who the setup actor counts as while a project has no user yet (somebody adds the first).
SETUP_ROLES = frozenset({Role.CURATOR.value})

# The app's pages, in page-bar order, and the actions that make a page useful to a role.
# "annotate" and "sme" and "judge" are every rater's own work: any role may open them.
PAGES: dict[str, frozenset[Action] | None] = {
    "desk": frozenset({Action.VIEW_DESK}),
    "annotate": None,
    "review": frozenset({Action.ADJUDICATE_CASES, Action.READ_OTHERS_WORK}),
    "sme": None,
    "judge": None,
    "agreement": frozenset({Action.READ_AGREEMENT}),
    "redaction": frozenset({Action.REVIEW_IMAGES}),
    "export": frozenset({Action.EXPORT}),
}
_LANDING = ((Role.CURATOR, "desk"), (Role.ADJUDICATOR, "review"), (Role.ANNOTATOR, "annotate"))


def _roles(roles: Iterable[str]) -> set[Role]:
    return {Role(r) for r in roles if r in Role.__members__.values()}


def may(roles: Iterable[str], action: Action) -> bool:
    """Whether a person with ``roles`` may take ``action``."""
    return bool(RULES[action].roles & _roles(roles))


def needed_roles(action: Action) -> list[str]:
    """The roles that allow ``action``, sorted (for tooltips and messages)."""
    return sorted(r.value for r in RULES[action].roles)


def refusal(action: Action, actor: str) -> str:
    """The one-line message of a refused action: what it was and which role it needs."""
    needs = " or ".join(needed_roles(action))
    return f"{RULES[action].doing} needs the {needs} role; {actor} does not have it"


def not_a_user(action: Action, actor: str) -> str:
    """The one-line message of an action by a name that is not a user of the project."""
    return f"{RULES[action].doing}: {actor!r} is not a user of this project"


def pages_for(roles: Iterable[str]) -> list[str]:
    """The pages a person with ``roles`` sees, in page-bar order."""
    held = list(roles)
    return [page for page, actions in PAGES.items()
            if actions is None or any(may(held, a) for a in actions)]


def landing_page(roles: Iterable[str]) -> str:
    """Where a person starts: curators on the desk, adjudicators on review, others annotate."""
    held = _roles(roles)
    return next((page for role, page in _LANDING if role in held), "annotate")
