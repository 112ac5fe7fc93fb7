"""People and roles; who is acting, and what their roles allow."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.passwords import hash_password, verify_password
from annotator.domain.permissions import SETUP_ROLES, Action, may, not_a_user, refusal
from annotator.domain.states import ROLES, Role
from annotator.domain.text import one_line
from annotator.errors import NotFound, PermissionDenied, ValidationError
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import User, UserRole
from annotator.store.settings import LOCAL_USER

SETUP_ACTOR = "(setup)"
# Who the history names for a password set through the administrative URL.
STORE_ADMIN_ACTOR = "(store admin)"


@dataclass(frozen=True)
class UserInfo:
    name: str
    roles: list[str]


def get_user(session: Session, name: str) -> User:
    user = session.scalars(select(User).where(User.name == name)).first()
    if user is None:
        raise NotFound(f"no user named {name!r} in this project")
    return user


def require(session: Session, actor: str, action: Action) -> User | None:
    """The acting user if their roles allow ``action`` (:mod:`annotator.domain.permissions`),
    else PermissionDenied with the rule's one-line :func:`refusal`.

    The one place a service asks who may act: the GUI asks the same rule (``permissions.may``)
    before it offers the action, so a refusal here never comes after typed work. While a
    project has no user at all, the setup actor holds the curator role (somebody has to add
    the first people); it gets None back, as it is nobody's row.
    """
    user = session.scalars(select(User).where(User.name == actor)).first()
    if user is None:
        if actor == SETUP_ACTOR and may(SETUP_ROLES, action) and not _any_user(session):
            return None
        raise PermissionDenied(not_a_user(action, actor))
    if not may(user.role_names, action):
        raise PermissionDenied(refusal(action, actor))
    return user


def require_user(session: Session, actor: str, action: Action) -> User:
    """:func:`require` for actions only a real user takes (reading others' work, deciding)."""
    user = require(session, actor, action)
    if user is None:
        raise PermissionDenied(not_a_user(action, actor))
    return user


def allows(session: Session, actor: str, action: Action) -> bool:
    """Whether ``actor`` (a user's name) may take ``action``: what a page asks to show a tab."""
    user = session.scalars(select(User).where(User.name == actor)).first()
    return user is not None and may(user.role_names, action)


def takes_work(user: User) -> bool:
    """Whether ``user`` is given work to annotate or score (cases, items, outputs)."""
    return may(user.role_names, Action.TAKE_ASSIGNED_WORK)


def require_takes_work(user: User) -> None:
    """ValidationError unless ``user`` may be given work (the target of an assignment)."""
    if not takes_work(user):
        raise ValidationError(refusal(Action.TAKE_ASSIGNED_WORK, user.name))


def _any_user(session: Session) -> bool:
    return session.scalars(select(User.id).limit(1)).first() is not None


def add_user(project: Project, actor: str, name: str, roles: list[str]) -> UserInfo:
    """Add a person with roles, or add roles to an existing person (curators only)."""
    name = name.strip()
    if not name:
        raise ValidationError("a user needs a name")
    if len(name) > 200:
        raise ValidationError(f"a user name has at most 200 characters (got {len(name)})")
    try:
        one_line(name)
    except ValueError as exc:
        raise ValidationError(f"a user name cannot hold control characters: {exc}") from None
    bad = [r for r in roles if r not in ROLES]
    if bad or not roles:
        raise ValidationError(
            f"roles must be among {', '.join(ROLES)} (got {', '.join(bad) or 'none'})"
        )
    with project.tx() as session:
        require(session, actor, Action.MANAGE_USERS)
        user = session.scalars(select(User).where(User.name == name)).first()
        if user is None:
            user = User(name=name)
            session.add(user)
            session.flush()
        new_roles = sorted(set(roles) - set(user.role_names))
        for role in new_roles:
            user.roles.append(UserRole(role=role))
        record(session, actor, "user_added", after={"name": name, "roles": new_roles})
        session.flush()
        info = UserInfo(user.name, user.role_names)
    if project.setting(LOCAL_USER) is None and may(info.roles, Action.MANAGE_USERS):
        # The first curator becomes this project's default identity on the command line.
        project.set_setting(LOCAL_USER, info.name)
    return info


def list_users(project: Project) -> list[UserInfo]:
    with project.read() as session:
        users = session.scalars(select(User).order_by(User.name))
        return [UserInfo(u.name, u.role_names) for u in users]


def roles_of(project: Project, name: str | None) -> list[str]:
    """The roles of ``name``; none for somebody who is not a user of the project."""
    with project.tx() as session:
        user = session.scalars(select(User).where(User.name == (name or ""))).first()
        return sorted(user.role_names) if user is not None else []


def resolve_actor(project: Project, requested: str | None, password: str | None = None) -> str:
    """Who is acting: ``--as``/ANNOTATOR_USER, else the project's local user, else setup.

    An empty or blank name is an error, never "whoever the default is". On a team store with
    logins (:func:`logins_required`) the actor must also prove who they are with ``password``.
    """
    if requested is not None:
        if not requested.strip():
            raise ValidationError("an empty user name was given (--as or ANNOTATOR_USER)")
        actor = requested
    else:
        local = project.setting(LOCAL_USER)
        actor = str(local) if local else SETUP_ACTOR
    if logins_required(project):
        authenticate(project, actor, password)
    return actor


def logins_required(project: Project) -> bool:
    """True on a PostgreSQL team store once any user has a password.

    A single-user SQLite project stays a name choice. A team store without any password is
    in setup: the curator sets passwords (``users passwd``), and from the first one on every
    action needs a login.
    """
    if project.is_sqlite:
        return False
    with project.read() as session:
        return _any_password(session)


def authenticate(project: Project, name: str, password: str | None) -> None:
    """Raise PermissionDenied unless ``password`` is ``name``'s (same message either way).

    An unknown user, one without a password and a wrong password cost the same scrypt work
    (:func:`verify_password` checks against a dummy hash), so the answer's time tells nothing.
    """
    with project.read() as session:
        user = session.scalars(select(User).where(User.name == name)).first()
        stored = user.password_hash if user is not None else None
    if password is None:
        raise PermissionDenied(f"this team store needs a login: give {name}'s password"
                               " (--password-file FILE or ANNOTATOR_PASSWORD)")
    if not verify_password(password, stored):
        raise PermissionDenied(f"login failed for {name!r}: unknown user or wrong password")


def _hashed(password: str) -> str:
    try:
        return hash_password(password)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _any_password(session: Session) -> bool:
    return session.scalars(
        select(User.id).where(User.password_hash.is_not(None)).limit(1)
    ).first() is not None


_NO_PASSWORD_YET = "this team store has no password yet"


def _require_first_password(actor: str, user: User, owner: bool) -> None:
    """The first password of a team store: a curator's own, through the administrative URL.

    Whoever set theirs first would switch logins on and lock out the curators; and while no
    one logs in, a name is all it takes to claim an account, so only the connection that owns
    the store (which could rewrite the table anyway) may set it.
    """
    if not may(user.role_names, Action.MANAGE_USERS):
        raise PermissionDenied(f"{_NO_PASSWORD_YET}: the first one must be a curator's own, so"
                               f" that logins cannot lock the curators out; {user.name} is not"
                               " a curator (a curator sets theirs first)")
    if actor != user.name:
        raise PermissionDenied(f"{_NO_PASSWORD_YET}: the first one must be the curator's own;"
                               f" {actor} cannot set {user.name}'s")
    if not owner:
        raise PermissionDenied(f"{_NO_PASSWORD_YET}: the first one is set through the store's"
                               " administrative URL (a database role that owns its tables):"
                               f" annotator --project ADMIN_URL users passwd {user.name!r}")


def set_password(project: Project, actor: str, name: str, password: str) -> None:
    """Set ``name``'s password (curators for anyone, a user for themself); hashed, never kept.

    On a team store without any password, only a curator's own password may be set, and
    only through its administrative URL (:func:`_require_first_password`).
    """
    hashed = _hashed(password)
    owner = project.owner_connection()
    with project.tx() as session:
        if project.is_sqlite or _any_password(session):
            if actor != name:
                require(session, actor, Action.MANAGE_USERS)
            user = get_user(session, name)
        else:
            user = get_user(session, name)
            _require_first_password(actor, user, owner)
        user.password_hash = hashed
        record(session, actor, "password_set", after={"name": name})


def administers_store(project: Project) -> bool:
    """True when ``project`` is opened through its administrative URL (:func:`reset_password`)."""
    return project.owner_connection()


def reset_password(project: Project, name: str, password: str) -> None:
    """Set ``name``'s password without a login, through the store's administrative URL.

    The recovery path of a locked-out team store: a database role that owns the tables
    could set the hash with SQL anyway; an annotator's connection (a role that does not own
    them) is refused. While no password exists, the first must still be a curator's.
    """
    hashed = _hashed(password)
    if not project.owner_connection():
        raise PermissionDenied("setting a password without a login needs the store's"
                               " administrative URL (a database role that owns its tables)")
    with project.tx() as session:
        user = get_user(session, name)
        if not _any_password(session) and not may(user.role_names, Action.MANAGE_USERS):
            raise PermissionDenied(f"{_NO_PASSWORD_YET}: the first one must be a curator's"
                                   f" own; {name} is not a curator")
        user.password_hash = hashed
        record(session, STORE_ADMIN_ACTOR, "password_set", after={"name": name})


def change_roles(
    project: Project, actor: str, name: str, add: list[str] | None = None,
    remove: list[str] | None = None,
) -> UserInfo:
    """Give ``name`` roles and take others away (curators only), with a history entry.

    A user keeps at least one role, and the project keeps at least one curator: removing
    the last curator's role would leave nobody who may manage the project.
    """
    add, remove = sorted(set(add or [])), sorted(set(remove or []))
    bad = [r for r in (*add, *remove) if r not in ROLES]
    if bad or not (add or remove):
        raise ValidationError(
            f"roles must be among {', '.join(ROLES)} (got {', '.join(bad) or 'none'})")
    both = sorted(set(add) & set(remove))
    if both:
        raise ValidationError(f"a role cannot be added and removed at once: {', '.join(both)}")
    with project.tx() as session:
        require(session, actor, Action.MANAGE_USERS)
        user = get_user(session, name)
        before = sorted(user.role_names)
        after = sorted((set(before) | set(add)) - set(remove))
        if not after:
            raise ValidationError(f"{name} would have no role left; give another role first")
        if Role.CURATOR.value in before and Role.CURATOR.value not in after:
            others = [u for u in session.scalars(select(User).where(User.id != user.id))
                      if Role.CURATOR.value in u.role_names]
            if not others:
                raise ValidationError(f"{name} is the project's last curator; make someone"
                                      " else a curator first")
        for row in [r for r in user.roles if r.role in remove]:
            user.roles.remove(row)
            session.delete(row)
        for role in add:
            if role not in before:
                user.roles.append(UserRole(role=role))
        if after != before:
            record(session, actor, "user_roles_changed",
                   before={"name": name, "roles": before}, after={"name": name, "roles": after})
        session.flush()
        return UserInfo(user.name, sorted(user.role_names))
