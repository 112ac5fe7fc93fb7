"""The table helpers the migrations share: frozen history with them.

Never import application code here (nor change what a helper emits): a migration must do
tomorrow exactly what it did the day it was written. Each helper writes the operations the
migrations used to spell out by hand, with the names of the store's naming convention
(``pk_<table>``, ``fk_<table>_<column>_<target>``, ``ix_<table>_<column>``,
``uq_<table>_<column>``, ``ck_<table>_<name>``).

A table's columns are one spec, ``"name type[flags], ..."``: type is ``uuid``, ``int``,
``bigint``, ``bool``, ``json``, ``text``, ``time`` (DateTime), ``blob`` (LargeBinary) or
``sN`` (String of length N); flag ``?`` makes the column nullable, ``!`` unique under the
convention's name. Foreign keys are ``"column>target"`` (to ``target.id``) or
``"column>target.column"``, in the order given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

_TYPES: dict[str, Any] = {
    "uuid": sa.Uuid, "int": sa.Integer, "bigint": sa.BigInteger, "bool": sa.Boolean,
    "json": sa.JSON, "text": sa.Text, "time": sa.DateTime, "blob": sa.LargeBinary,
}


def _type(name: str) -> Any:
    if name.startswith("s") and name[1:].isdigit():
        return sa.String(length=int(name[1:]))
    return _TYPES[name]()


def columns(spec: str) -> list[sa.Column[Any]]:
    """The columns of a spec (see the module docstring), in order."""
    out = []
    for part in spec.split(","):
        name, kind = part.split()
        out.append(sa.Column(name, _type(kind.rstrip("?!")), nullable="?" in kind))
    return out


def fk(table: str, link: str) -> sa.ForeignKeyConstraint:
    """``column>target`` (to ``target.id``) or ``column>target.column``, named by convention."""
    column, target = link.split(">")
    target_table, _, target_column = target.partition(".")
    return sa.ForeignKeyConstraint(
        [column],
        [f"{target_table}.{target_column or 'id'}"],
        name=op.f(f"fk_{table}_{column}_{target_table}"),
    )


def table(
    name: str,
    spec: str,
    *,
    pk: str = "id",
    fks: str = "",
    checks: dict[str, str] | None = None,
    unique: dict[str, str] | None = None,
    index: str = "",
) -> sa.Table:
    """Create a table: columns, checks, foreign keys, primary key, then unique constraints
    (the convention's, then those named in ``unique``: name -> columns), then the indexes
    named in ``index`` (one per column, in order)."""
    cols = columns(spec)
    items: list[Any] = [
        sa.CheckConstraint(sql, name=op.f(f"ck_{name}_{check}"))
        for check, sql in (checks or {}).items()
    ]
    items += [fk(name, link) for link in fks.split()]
    items.append(sa.PrimaryKeyConstraint(*pk.split(), name=op.f(f"pk_{name}")))
    items += [
        sa.UniqueConstraint(c.name, name=op.f(f"uq_{name}_{c.name}"))
        for c, part in zip(cols, spec.split(","), strict=True)
        if "!" in part
    ]
    items += [sa.UniqueConstraint(*cs.split(), name=n) for n, cs in (unique or {}).items()]
    created = op.create_table(name, *cols, *items)
    create_indexes(name, index)
    return created


def create_indexes(name: str, index: str) -> None:
    """One index per column named in ``index`` (space separated), in order."""
    if not index:
        return
    with op.batch_alter_table(name, schema=None) as batch_op:
        for column in index.split():
            batch_op.create_index(batch_op.f(f"ix_{name}_{column}"), [column], unique=False)


def drop_table(name: str, index: str = "") -> None:
    """Drop a table, first its indexes named in ``index`` (in reverse order)."""
    if index:
        with op.batch_alter_table(name, schema=None) as batch_op:
            for column in reversed(index.split()):
                batch_op.drop_index(batch_op.f(f"ix_{name}_{column}"))
    op.drop_table(name)


def column_added(name: str, spec: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """The upgrade and downgrade of a migration that adds the columns of ``spec`` to a table
    (batch mode: SQLite rebuilds it) and drops them again."""

    def upgrade() -> None:
        with op.batch_alter_table(name) as batch_op:
            for column in columns(spec):
                batch_op.add_column(column)

    def downgrade() -> None:
        with op.batch_alter_table(name) as batch_op:
            for column in reversed(columns(spec)):
                batch_op.drop_column(column.name)

    return upgrade, downgrade


def own_view(name: str, definition: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """The upgrade and downgrade of a migration that adds a walled store's view of the
    caller's own rows (PostgreSQL only; SQLite is never walled): ``definition`` creates it
    (``WITH (security_barrier)``, rows of ``annotator_me()``). Owned by the store's owner,
    it reads past the row policies; only the store's app roles may select from it."""

    def upgrade() -> None:
        bind = op.get_bind()
        if bind.dialect.name != "postgresql":
            return
        prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
        app = '"' + f"{prefix}_app".replace('"', '""') + '"'
        bind.exec_driver_sql(definition)
        bind.exec_driver_sql(f"REVOKE ALL ON {name} FROM PUBLIC")
        bind.exec_driver_sql(f"GRANT SELECT ON {name} TO {app}")

    def downgrade() -> None:
        bind = op.get_bind()
        if bind.dialect.name == "postgresql":
            bind.exec_driver_sql(f"DROP VIEW IF EXISTS {name}")

    return upgrade, downgrade


_SENIOR = "((SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator')))"
CURATORS = "(SELECT annotator_is('curator'))"
# Curators read and write the table; nobody else sees a row (0019, 0034).
CURATORS_ONLY = (("SELECT", CURATORS, None), ("INSERT", None, CURATORS),
                 ("UPDATE", CURATORS, CURATORS), ("DELETE", CURATORS, None))


def row_policies(name: str, grants: str,
                 policies: tuple[tuple[str, str | None, str | None], ...]) -> None:
    """On a walled PostgreSQL store (0013_rls): grant the app role ``grants`` on the table
    ``name``, turn its row-level security on and create ``policies`` (command, USING, WITH
    CHECK), named ``annotator_<command>_<n>``. Elsewhere, nothing."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql" or bind.exec_driver_sql(
            "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first() is None:
        return
    role = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
    app = '"' + f"{role}_app".replace('"', '""') + '"'
    bind.exec_driver_sql(f"GRANT {grants} ON {name} TO {app}")
    bind.exec_driver_sql(f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY")
    for n, (command, using, check) in enumerate(policies):
        clause = f" USING ({using})" if using else ""
        clause += f" WITH CHECK ({check})" if check else ""
        bind.exec_driver_sql(f"CREATE POLICY annotator_{command.lower()}_{n} ON {name}"
                             f" FOR {command} TO {app}{clause}")


def install_totals(name: str, *, prefix: str, recount: str,
                   pg_functions: tuple[str, str], pg_triggers: tuple[str, ...],
                   sqlite_triggers: dict[str, str]) -> None:
    """Keep the created table ``name`` of totals by triggers on its source, then fill it
    with ``recount`` (0032, 0033). PostgreSQL: ``pg_functions`` creates the trigger function
    ``<prefix>_totals()`` and the recount ``<prefix>_recount()`` (both SECURITY DEFINER, no
    PUBLIC execute); on a walled store the app role reads the table under a seniors-only
    policy and may call the recount. SQLite: ``sqlite_triggers``."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for statement in (*pg_functions, *pg_triggers):
            bind.exec_driver_sql(statement)
        for function in (f"{prefix}_totals()", f"{prefix}_recount()"):
            bind.exec_driver_sql(f"REVOKE EXECUTE ON FUNCTION {function} FROM PUBLIC")
        walled = bind.exec_driver_sql(
            "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first()
        if walled is not None:
            role = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
            app = '"' + f"{role}_app".replace('"', '""') + '"'
            bind.exec_driver_sql(f"GRANT SELECT ON {name} TO {app}")
            bind.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION {prefix}_recount() TO {app}")
            bind.exec_driver_sql(f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY")
            bind.exec_driver_sql(f"CREATE POLICY annotator_select_0 ON {name}"
                                 f" FOR SELECT TO {app} USING ({_SENIOR})")
    else:
        for statement in sqlite_triggers.values():
            bind.exec_driver_sql(statement)
    bind.exec_driver_sql(recount)


def remove_totals(name: str, source: str, *, prefix: str, pg_triggers: tuple[str, ...],
                  sqlite_triggers: dict[str, str]) -> None:
    """Undo :func:`install_totals` and drop the table (``pg_triggers``: the triggers' names)."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for trigger in pg_triggers:
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {trigger} ON {source}")
        bind.exec_driver_sql(f"DROP FUNCTION IF EXISTS {prefix}_totals()")
        bind.exec_driver_sql(f"DROP FUNCTION IF EXISTS {prefix}_recount()")
    else:
        for trigger in sqlite_triggers:
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {trigger}")
    op.drop_table(name)
