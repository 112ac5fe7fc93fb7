"""The fixture switch ``ANNOTATOR_PG_AS_ROLES=1``: PostgreSQL tests run as the acting user's role.

The tests open their stores through the owner's URL and name the acting user in each service
call. With the switch on, every service function or method whose parameters start with
``project, actor`` records the actor of the outermost call, and every transaction that
begins meanwhile on PostgreSQL runs ``SET LOCAL ROLE`` to that person's login role (the
``db_role`` migration 0013_rls gave them): the database's row-level security then applies
exactly as to that person's own connection. Names without a login ("(setup)", strangers the
services refuse anyway) stay the owner.
"""

from __future__ import annotations

import contextvars
import functools
import importlib
import inspect
import pkgutil
import sys
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, SessionTransaction

ACTING: contextvars.ContextVar[str | None] = contextvars.ContextVar("acting", default=None)
# Tests of the administrative URL's own logins (marked ``admin_url``) run as the owner.
suspended = False
_wrapped: dict[int, Callable[..., Any]] = {}


def _actor_index(function: Callable[..., Any]) -> int | None:
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    if names[:1] == ["self"]:
        names = names[1:]
        offset = 1
    else:
        offset = 0
    if names[:2] == ["project", "actor"]:
        return offset + 1
    return None


def _wrap(function: Callable[..., Any], index: int) -> Callable[..., Any]:
    @functools.wraps(function)
    def acting(*args: Any, **kwargs: Any) -> Any:
        if ACTING.get() is not None:
            return function(*args, **kwargs)
        actor = kwargs.get("actor", args[index] if len(args) > index else None)
        token = ACTING.set(actor if isinstance(actor, str) else None)
        try:
            return function(*args, **kwargs)
        finally:
            ACTING.reset(token)

    return acting


def _wrapper_of(function: Any) -> Any:
    if not inspect.isfunction(function):
        return None
    if id(function) in _wrapped:
        return _wrapped[id(function)]
    index = _actor_index(function)
    if index is None:
        return None
    _wrapped[id(function)] = _wrap(function, index)
    _wrapped[id(_wrapped[id(function)])] = _wrapped[id(function)]
    return _wrapped[id(function)]


def install() -> None:
    import annotator.services as services

    for info in pkgutil.walk_packages(services.__path__, "annotator.services."):
        importlib.import_module(info.name)
    importlib.import_module("annotator.cli")
    for name, module in list(sys.modules.items()):
        if not name.startswith("annotator.") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if inspect.isclass(value) and value.__module__.startswith("annotator.services"):
                for method_name, method in list(vars(value).items()):
                    wrapper = _wrapper_of(method)
                    if wrapper is not None and wrapper is not method:
                        setattr(value, method_name, wrapper)
            elif getattr(value, "__module__", "").startswith("annotator.services"):
                wrapper = _wrapper_of(value)
                if wrapper is not None and wrapper is not value:
                    setattr(module, attr, wrapper)
    event.listen(Session, "after_begin", _set_role)


def _set_role(_session: Session, _tx: SessionTransaction, connection: Connection) -> None:
    actor = ACTING.get()
    if suspended or actor is None or connection.dialect.name != "postgresql":
        return
    role = connection.execute(
        text("SELECT db_role FROM users WHERE name = :n"), {"n": actor}
    ).scalar()
    if role:
        connection.execute(text(f'SET LOCAL ROLE "{role}"'))
