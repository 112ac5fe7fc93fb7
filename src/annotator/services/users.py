"""People and roles; who is acting, and what their roles allow."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.passwords import hash_password, verify_password
from annotator.domain.permissions import SETUP_ROLES, Action, may, not_a_user, refusal
from annotator.domain.states import ROLES, Role
from annotator.domain.text import one_line
from annotator.errors import NotFound, PermissionDenied, ValidationError
from annotator.store.db_roles import (
    connection_person,
    create_login,
    current_role,
    owns_store,
    set_login_password,
    sync_groups,
    walled,
)
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
    # The person's PostgreSQL login role on a walled team store (None elsewhere).
    db_role: str | None = None


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


@dataclass(frozen=True)
class Person:
    """A user's id, name and roles, read as plain rows (no ORM object, no lazy load)."""

    id: uuid.UUID
    name: str
    roles: tuple[str, ...]

    @property  # asked of every person, twice, by the desk: one answer per set of roles
    def takes_work(self) -> bool:
        return _roles_take_work(self.roles)


@lru_cache(maxsize=64)
def _roles_take_work(roles: tuple[str, ...]) -> bool:
    return may(roles, Action.TAKE_ASSIGNED_WORK)


def people(session: Session, ids: Collection[uuid.UUID] | None = None) -> list[Person]:
    """Every user (or those of ``ids``) with their roles, by name: one read of plain rows.
    Loading 302 people (the bench's 100,000 cases) as ORM objects with their roles cost
    more than every counter behind the desk's rows (and making each row's id a UUID once
    more, for a second read of the roles, a third of this)."""
    found: dict[uuid.UUID, tuple[str, list[str]]] = {}
    query = (select(User.id, User.name, UserRole.role)
             .outerjoin(UserRole, UserRole.user_id == User.id).order_by(User.name))
    if ids is not None:
        query = query.where(User.id.in_(list(ids)))
    for user_id, name, role in session.execute(query):
        roles = found.setdefault(user_id, (name, []))[1]
        if role is not None:
            roles.append(role)
    return [Person(user_id, name, tuple(sorted(roles)))
            for user_id, (name, roles) in found.items()]


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
        db_role = None
        if walled(session):  # each person is a login role, in the groups of their roles
            db_role = create_login(session, name)
        info = UserInfo(user.name, user.role_names, db_role)
    if project.setting(LOCAL_USER) is None and may(info.roles, Action.MANAGE_USERS):
        # The first curator becomes this project's default identity on the command line.
        project.set_setting(LOCAL_USER, info.name)
    return info


def list_users(project: Project) -> list[UserInfo]:
    with project.read() as session:
        users = session.scalars(select(User).order_by(User.name))
        return [UserInfo(u.name, u.role_names, u.db_role) for u in users]


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
    if requested is not None and not requested.strip():
        raise ValidationError("an empty user name was given (--as or ANNOTATOR_USER)")
    person = _walled_person(project)
    if person is not None:  # PostgreSQL authenticated the connection: it is this person
        if requested is not None and requested != person:
            raise PermissionDenied(f"this connection is {person}'s login; it cannot act as"
                                   f" {requested!r} (connect with that person's db_role)")
        return person
    if requested is not None:
        actor = requested
    else:
        local = project.setting(LOCAL_USER)
        actor = str(local) if local else SETUP_ACTOR
    if logins_required(project):
        authenticate(project, actor, password)
    return actor


def connection_user(project: Project, requested: str | None = None) -> str | None:
    """The person a walled store's connection logs in as (None: SQLite or the owner's URL);
    PermissionDenied when ``requested`` names someone else or the role is no person's."""
    person = _walled_person(project)
    if person is not None and requested is not None and requested != person:
        raise PermissionDenied(f"this connection is {person}'s login; it cannot act as"
                               f" {requested!r} (connect with that person's db_role)")
    return person


def _walled_person(project: Project) -> str | None:
    """On a walled store through a person's login role: that person (the database checked
    the password). The owner's connection returns None (it acts as the names it is given);
    any other role of the server is refused."""
    if project.is_sqlite:
        return None
    with project.read() as session:
        if not walled(session) or owns_store(session):
            return None
        person = connection_person(session)
        if person is None:
            raise PermissionDenied(
                f"the database role {current_role(session)!r} is no login of this store:"
                " connect as your own (its db_role in 'annotator users list --json')"
            )
        return person


def logins_required(project: Project) -> bool:
    """True on a PostgreSQL team store once any user has a password.

    A single-user SQLite project stays a name choice. A team store without any password is
    in setup: the curator sets passwords (``users passwd``), and from the first one on every
    action needs a login.
    """
    if project.is_sqlite:
        return False
    with project.read() as session:
        if walled(session) and not owns_store(session):
            return False  # the server checked the login's password already
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
        if walled(session) and not owner:  # the server's own login: its password only
            if actor != name:
                require(session, actor, Action.MANAGE_USERS)
            _set_login_password(session, get_user(session, name), password)
            record(session, actor, "password_set", after={"name": name})
            return
        if project.is_sqlite or _any_password(session):
            if actor != name:
                require(session, actor, Action.MANAGE_USERS)
            user = get_user(session, name)
        else:
            user = get_user(session, name)
            _require_first_password(actor, user, owner)
        user.password_hash = hashed
        _set_login_password(session, user, password)
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
        _set_login_password(session, user, password)
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
        session.flush()
        if walled(session):  # the person's login follows: the group role of each app role
            sync_groups(session, name)
        if after != before:
            record(session, actor, "user_roles_changed",
                   before={"name": name, "roles": before}, after={"name": name, "roles": after})
        session.flush()
        return UserInfo(user.name, sorted(user.role_names), user.db_role)


def _set_login_password(session: Session, user: User, password: str) -> None:
    """On a walled store: the password of ``user``'s PostgreSQL login (SCRAM-SHA-256)."""
    if walled(session):
        db_role = user.db_role or create_login(session, user.name)
        set_login_password(session, user.name, db_role, password)
