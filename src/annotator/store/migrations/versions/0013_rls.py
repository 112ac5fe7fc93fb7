"""The database as the wall: per-person login roles and row-level security (PostgreSQL)

Each person on a team store is a PostgreSQL LOGIN role named with the store's prefix and a
member of the store's group role per app role; every table that holds people's work has
row-level security. The administrative role that runs this migration owns the tables (and
so bypasses the policies); the curator manages logins only through the SECURITY DEFINER
functions made here. SQLite gains the ``users.db_role`` column only. See docs/security.md.

Revision ID: 0013_rls
Revises: 0012_scale_indexes
"""

from __future__ import annotations

import re
import secrets

import sqlalchemy as sa
from alembic import op

revision = "0013_rls"
down_revision = "0012_scale_indexes"
branch_labels = None
depends_on = None

GROUPS = ("curator", "adjudicator", "annotator")

# Tables with row-level security, and the policies of the store's app roles on them. Owner
# and superusers bypass them. ``{me}`` is the acting person's users.id, ``{name}`` their user
# name, ``{cur}``/``{adj}``/``{reader}`` whether they hold the curator / adjudicator / either
# role. Every rule is (command, USING, WITH CHECK); no rule for a command means refused.
_ME = "(SELECT annotator_me())"
_NAME = "(SELECT annotator_my_name())"
_CUR = "(SELECT annotator_is('curator'))"
_ADJ = "(SELECT annotator_is('adjudicator'))"
_READER = f"({_CUR} OR {_ADJ})"
_OWN_TASK = f"EXISTS (SELECT 1 FROM rated_work w WHERE w.task_id = {{col}} AND w.rater_id = {_ME})"
_OWN_ITEM = f"EXISTS (SELECT 1 FROM rated_work w WHERE w.item_id = {{col}} AND w.rater_id = {_ME})"


def _own_case(col: str) -> str:
    """A case assigned to the caller, or linked to a judged output they score."""
    return (f"EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = {_ME} AND (w.case_pk ="
            f" {col} OR w.item_id IN (SELECT j.id FROM judge_items j WHERE j.case_pk = {col})))")


_SUBMITTED_ON_ITEM = (
    f"EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = {_ME} AND w.kind = decisions.kind"
    " AND w.submitted_at IS NOT NULL AND (w.case_pk = decisions.case_pk"
    " OR w.task_id = decisions.task_id OR w.item_id = decisions.item_id))"
)
_CASE_OF_REVISION = (
    "EXISTS (SELECT 1 FROM case_revisions r WHERE r.id = {col} AND "
    + _own_case("r.case_pk") + ")"
)

POLICIES: dict[str, list[tuple[str, str, str | None]]] = {
    # People's work: a rater's own rows; adjudicators what was submitted; curators all.
    "rated_work": [
        ("SELECT", f"rater_id = {_ME} OR {_CUR} OR ({_ADJ} AND submitted_at IS NOT NULL)", None),
        ("INSERT", None, f"rater_id = {_ME} OR {_CUR}"),
        ("UPDATE", f"rater_id = {_ME} OR {_READER}", f"rater_id = {_ME} OR {_READER}"),
        ("DELETE", _CUR, None),
    ],
    "decisions": [
        ("SELECT", f"{_READER} OR {_SUBMITTED_ON_ITEM}", None),
        ("INSERT", None, _READER),
        ("UPDATE", _READER, _READER),
        ("DELETE", _CUR, None),
    ],
    # History: rows by or about oneself; INSERT in one's own name only (curators also write
    # an imported package's rows in its annotator's name); UPDATE/DELETE for nobody.
    "history": [
        ("SELECT", f"{_READER} OR actor = {_NAME} OR annotation_id IN"
                   f" (SELECT w.id FROM rated_work w WHERE w.rater_id = {_ME})", None),
        # Seniors' reads may record an automatic detection, named "(auto)".
        ("INSERT", None, f"actor = {_NAME} OR {_CUR} OR ({_ADJ} AND actor = '(auto)')"),
    ],
    "review_records": [
        ("SELECT", _READER, None), ("INSERT", None, _READER),
        ("UPDATE", _READER, _READER), ("DELETE", _CUR, None),
    ],
    "detected_items": [
        ("SELECT", _READER, None), ("INSERT", None, _READER),
        ("UPDATE", _READER, _READER), ("DELETE", _CUR, None),
    ],
    "reviewer_letters": [
        ("SELECT", f"{_READER} OR annotator_id = {_ME}", None), ("INSERT", None, _READER),
        ("UPDATE", _READER, _READER), ("DELETE", _CUR, None),
    ],
    # What an annotator reads: the cases, drafts and images assigned to them.
    "cases": [
        ("SELECT", f"{_READER} OR " + _own_case("cases.id"), None),
        ("INSERT", None, _CUR),
        # Submitting moves the case's state (in review once all have submitted).
        ("UPDATE", f"{_READER} OR " + _own_case("cases.id"),
         f"{_READER} OR " + _own_case("cases.id")),
        ("DELETE", _CUR, None),
    ],
    "case_revisions": [
        ("SELECT", f"{_READER} OR " + _own_case("case_revisions.case_pk"), None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "case_images": [
        ("SELECT", f"{_READER} OR " + _CASE_OF_REVISION.format(col="case_images.revision_id"),
         None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "image_blobs": [
        ("SELECT", f"{_READER} OR EXISTS (SELECT 1 FROM case_images i WHERE i.sha256 ="
                   " image_blobs.sha256)", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "sme_items": [
        ("SELECT", f"{_READER} OR EXISTS (SELECT 1 FROM sme_tasks t WHERE t.item_pk ="
                   " sme_items.id)", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "sme_tasks": [
        ("SELECT", f"{_READER} OR " + _OWN_TASK.format(col="sme_tasks.id"), None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "judge_items": [
        ("SELECT", f"{_READER} OR " + _OWN_ITEM.format(col="judge_items.id"), None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "judged_runs": [
        ("SELECT", f"{_READER} OR EXISTS (SELECT 1 FROM judge_items j WHERE j.run_id ="
                   " judged_runs.id)", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    # The automated judge's scores: seniors, and a physician after submitting the item.
    "judge_mode_scores": [
        ("SELECT", f"{_READER} OR EXISTS (SELECT 1 FROM rated_work w WHERE w.item_id ="
                   f" judge_mode_scores.item_id AND w.rater_id = {_ME}"
                   " AND w.submitted_at IS NOT NULL)", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    # Calibration and gold items with their reference answers: seniors; a rater sees an
    # item's reference only once their own work on it is submitted (feedback after submit).
    "quality_items": [
        ("SELECT", f"{_READER} OR EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = {_ME}"
                   " AND w.kind = quality_items.kind AND w.submitted_at IS NOT NULL AND ("
                   "(quality_items.kind = 'case' AND w.case_pk IN (SELECT c.id FROM cases c"
                   " WHERE c.case_id = quality_items.item_ref))"
                   " OR CAST(w.task_id AS text) = quality_items.item_ref"
                   " OR CAST(w.item_id AS text) = quality_items.item_ref))", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    # Bundles and packages (the derived package keys live in settings, below).
    "sync_bundles": [
        ("SELECT", f"{_CUR} OR annotator_id = {_ME}", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    "sync_packages": [
        ("SELECT", f"{_CUR} OR annotator_id = {_ME}", None),
        ("INSERT", None, _CUR), ("UPDATE", _CUR, _CUR), ("DELETE", _CUR, None),
    ],
    # Settings: bundle keys and package secrets for curators only; a person's own resume
    # point; the rest readable by everyone and written by curators.
    "settings": [
        ("SELECT", f"{_CUR} OR (key NOT LIKE 'bundle\\_key:%' AND key <> 'package_secret'"
                   " AND key NOT LIKE 'resume:%') OR key = 'resume:' || " + _NAME, None),
        ("INSERT", None, f"{_CUR} OR key = 'resume:' || {_NAME} OR key LIKE 'cache:%'"),
        ("UPDATE", f"{_CUR} OR key = 'resume:' || {_NAME} OR key LIKE 'cache:%'",
         f"{_CUR} OR key = 'resume:' || {_NAME} OR key LIKE 'cache:%'"),
        ("DELETE", _CUR, None),
    ],
}

# Readable and writable as a whole by every app role, with the reason (the RLS test lists
# every table of the metadata either here or above).
PUBLIC_BY_DESIGN = {
    "alembic_version": "the schema version every app checks when it opens the store",
    "users": "names, roles and db_role are shown to everyone; password_hash is column-revoked",
    "user_roles": "who holds which role (the page gates read it)",
    "history_chain": "the chain head every writer of history locks and advances",
    "sme_benchmarks": "the benchmark specifications an SME reviews against",
    "image_text_checks": "the pixel check of an image hash: boxes, never text or pixels",
    "image_reviews": "a curator's redaction decision on an image hash",
}

# Columns an annotator's role may not read, whatever the row.
HIDDEN_FROM_ANNOTATORS = {"sme_items": ("system",), "sme_tasks": ("automated",)}


def _prefix(database: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", database.lower()).strip("_")[:26] or "store"
    return f"{slug}_{secrets.token_hex(3)}"


def upgrade() -> None:
    # A plain ADD COLUMN and a unique index: a batch copy of users would break SQLite's
    # foreign keys to it.
    op.add_column("users", sa.Column("db_role", sa.String(length=63), nullable=True))
    op.create_index("uq_users_db_role", "users", ["db_role"], unique=True)
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    database = bind.exec_driver_sql("SELECT current_database()").scalar_one()
    prefix = _prefix(str(database))
    for statement in _install(prefix, str(database), _tables(bind)):
        bind.exec_driver_sql(statement.replace("%", "%%"))


def _tables(bind: sa.Connection) -> list[str]:
    return [r[0] for r in bind.exec_driver_sql(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    )]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _install(prefix: str, database: str, tables: list[str]) -> list[str]:
    app = f"{prefix}_app"
    out = [f"CREATE ROLE {_q(app)} NOLOGIN"]
    out += [f"CREATE ROLE {_q(f'{prefix}_{g}')} NOLOGIN IN ROLE {_q(app)}" for g in GROUPS]
    out += [
        f"REVOKE CONNECT, TEMPORARY ON DATABASE {_q(database)} FROM PUBLIC",
        f"GRANT CONNECT ON DATABASE {_q(database)} TO {_q(app)}",
        f"GRANT USAGE ON SCHEMA public TO {_q(app)}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {_q(app)}",
    ]
    out += _functions(prefix, app)
    for table in tables:
        if table in POLICIES:
            writes = {cmd for cmd, _u, _c in POLICIES[table]} - {"SELECT"}
            out.append(f"GRANT {', '.join(sorted(writes))} ON {table} TO {_q(app)}")
            hidden = HIDDEN_FROM_ANNOTATORS.get(table)
            if hidden:
                # Seniors read every column; annotators all but the hidden ones.
                for g in ("curator", "adjudicator"):
                    out.append(f"GRANT SELECT ON {table} TO {_q(f'{prefix}_{g}')}")
                out.append(f"GRANT SELECT ({', '.join(_visible(table, hidden))}) ON {table}"
                           f" TO {_q(f'{prefix}_annotator')}")
            else:
                out.append(f"GRANT SELECT ON {table} TO {_q(app)}")
            out.append(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
            for n, (cmd, using, check) in enumerate(POLICIES[table]):
                clause = f" USING ({using})" if using else ""
                clause += f" WITH CHECK ({check})" if check else ""
                out.append(f"CREATE POLICY annotator_{cmd.lower()}_{n} ON {table} FOR {cmd}"
                           f" TO {_q(app)}{clause}")
        elif table in PUBLIC_BY_DESIGN:
            if table == "users":
                out.append(f"GRANT SELECT ({', '.join(_USER_COLUMNS)}) ON users TO {_q(app)}")
                out.append(f"GRANT INSERT, UPDATE ON users TO {_q(f'{prefix}_curator')}")
                out.append(f"REVOKE UPDATE (password_hash) ON users FROM {_q(app)}")
            elif table == "alembic_version":
                out.append(f"GRANT SELECT ON alembic_version TO {_q(app)}")
            elif table == "history_chain":
                out.append(f"GRANT SELECT, UPDATE ON history_chain TO {_q(app)}")
            elif table == "user_roles":
                out.append(f"GRANT SELECT ON user_roles TO {_q(app)}")
                out.append(f"GRANT INSERT, DELETE ON user_roles TO {_q(f'{prefix}_curator')}")
            else:
                out.append(f"GRANT SELECT ON {table} TO {_q(app)}")
                out.append(f"GRANT INSERT, UPDATE, DELETE ON {table}"
                           f" TO {_q(f'{prefix}_curator')}")
    # History: no UPDATE or DELETE for any app role (the append-only trigger stays too).
    out.append(f"REVOKE UPDATE, DELETE, TRUNCATE ON history FROM {_q(app)}")
    return out


_USER_COLUMNS = ("id", "name", "created_at", "version", "db_role")
_COLUMNS = {
    "sme_items": ("id", "item_id", "case_ref", "position", "test_case", "ground_truth",
                  "output", "run", "content_hash", "source_file", "imported_at",
                  "imported_by"),
    "sme_tasks": ("id", "item_pk", "benchmark_id"),
}


def _visible(table: str, hidden: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c for c in _COLUMNS[table] if c not in hidden)


def _functions(prefix: str, app: str) -> list[str]:
    p = prefix
    owner_check = (
        "pg_has_role(session_user, (SELECT relowner FROM pg_class"
        " WHERE oid = 'public.users'::regclass), 'MEMBER')"
    )
    curator_check = f"(pg_has_role(session_user, '{p}_curator', 'MEMBER') OR {owner_check})"
    definer = "SECURITY DEFINER SET search_path = public, pg_temp"
    functions = {
        "annotator_role_prefix()": (
            f"RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT '{p}'::text $$"
        ),
        "annotator_is(text)": (
            "RETURNS boolean LANGUAGE sql STABLE AS"
            f" $$ SELECT pg_has_role(current_user, '{p}_' || $1, 'MEMBER') $$"
        ),
        "annotator_me()": (
            "RETURNS uuid LANGUAGE sql STABLE AS"
            " $$ SELECT id FROM public.users WHERE db_role = current_user $$"
        ),
        "annotator_my_name()": (
            "RETURNS text LANGUAGE sql STABLE AS"
            " $$ SELECT name FROM public.users WHERE db_role = current_user $$"
        ),
        # The states (never the values) of the active rated work on one item, for a rater
        # of that item: submitting moves a case to review once all raters have submitted.
        "annotator_item_states(text, uuid)": (
            f"RETURNS SETOF text LANGUAGE plpgsql STABLE {definer} AS $$"
            " DECLARE me uuid := (SELECT id FROM users WHERE db_role = session_user);"
            " BEGIN"
            f" IF NOT ({owner_check} OR pg_has_role(session_user, '{p}_curator', 'MEMBER')"
            f" OR pg_has_role(session_user, '{p}_adjudicator', 'MEMBER')"
            " OR EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = me AND w.kind = $1"
            " AND $2 IN (w.case_pk, w.task_id, w.item_id))) THEN"
            "  RAISE EXCEPTION 'not a rater of this item' USING ERRCODE = '42501'; END IF;"
            " RETURN QUERY SELECT w.state::text FROM rated_work w WHERE w.kind = $1"
            " AND w.withdrawn_at IS NULL AND $2 IN (w.case_pk, w.task_id, w.item_id);"
            " END $$"
        ),
        # How many SME items or judged outputs there are ("output 3 of 12"), for raters
        # who read only their own.
        "annotator_item_count(text)": (
            f"RETURNS bigint LANGUAGE plpgsql STABLE {definer} AS $$ BEGIN"
            " IF $1 = 'sme' THEN RETURN (SELECT count(*) FROM sme_items); END IF;"
            " IF $1 = 'judge' THEN RETURN (SELECT count(*) FROM judge_items); END IF;"
            " RAISE EXCEPTION 'no such kind: %', $1; END $$"
        ),
        # A hybrid benchmark's automated verdict, once the caller has submitted the task.
        "annotator_revealed_automated(uuid)": (
            f"RETURNS json LANGUAGE plpgsql STABLE {definer} AS $$"
            " DECLARE me uuid := (SELECT id FROM users WHERE db_role = session_user);"
            " BEGIN"
            f" IF {owner_check} OR pg_has_role(session_user, '{p}_curator', 'MEMBER')"
            f" OR pg_has_role(session_user, '{p}_adjudicator', 'MEMBER')"
            " OR EXISTS (SELECT 1 FROM rated_work w WHERE w.rater_id = me AND w.task_id = $1"
            " AND w.state = 'submitted') THEN"
            " RETURN (SELECT automated FROM sme_tasks WHERE id = $1); END IF;"
            " RETURN NULL; END $$"
        ),
        # Managing this store's logins: curators (and the owner) only, this prefix only.
        "annotator_create_login(text)": (
            f"RETURNS text LANGUAGE plpgsql VOLATILE {definer} AS $$"
            " DECLARE u record; r text; BEGIN"
            f" IF NOT {curator_check} THEN RAISE EXCEPTION"
            "  'only a curator of this store manages its logins' USING ERRCODE = '42501';"
            " END IF;"
            " SELECT id, db_role INTO u FROM users WHERE name = $1;"
            " IF NOT FOUND THEN RAISE EXCEPTION 'no user named %', $1; END IF;"
            " r := u.db_role;"
            " IF r IS NULL THEN"
            f"  r := '{p}_u_' || left(trim(both '_' from regexp_replace(lower($1),"
            "   '[^a-z0-9]+', '_', 'g')), 16) || '_' || left(replace(u.id::text, '-', ''), 6);"
            f"  EXECUTE format('CREATE ROLE %I LOGIN IN ROLE %I', r, '{app}');"
            "  UPDATE users SET db_role = r WHERE id = u.id;"
            " END IF;"
            " PERFORM annotator_sync_groups($1); RETURN r; END $$"
        ),
        "annotator_sync_groups(text)": (
            f"RETURNS void LANGUAGE plpgsql VOLATILE {definer} AS $$"
            " DECLARE u record; g text; BEGIN"
            f" IF NOT {curator_check} THEN RAISE EXCEPTION"
            "  'only a curator of this store manages its logins' USING ERRCODE = '42501';"
            " END IF;"
            " SELECT id, db_role INTO u FROM users WHERE name = $1;"
            " IF u.db_role IS NULL THEN RETURN; END IF;"
            " FOREACH g IN ARRAY ARRAY['curator', 'adjudicator', 'annotator'] LOOP"
            "  IF EXISTS (SELECT 1 FROM user_roles WHERE user_id = u.id AND role = g) THEN"
            f"   EXECUTE format('GRANT %I TO %I', '{p}_' || g, u.db_role);"
            "  ELSIF pg_has_role(u.db_role, "
            f"'{p}_' || g, 'MEMBER') THEN"
            f"   EXECUTE format('REVOKE %I FROM %I', '{p}_' || g, u.db_role);"
            "  END IF; END LOOP; END $$"
        ),
        # The password arrives as a SCRAM verifier made by the client: the plain text never
        # reaches the server (nor its logs).
        "annotator_set_password(text, text)": (
            f"RETURNS void LANGUAGE plpgsql VOLATILE {definer} AS $$"
            " DECLARE r text; BEGIN"
            " SELECT db_role INTO r FROM users WHERE name = $1;"
            " IF r IS NULL THEN RAISE EXCEPTION '% has no login on this store', $1; END IF;"
            f" IF NOT ({curator_check} OR session_user = r) THEN RAISE EXCEPTION"
            "  'a curator sets other people''s passwords' USING ERRCODE = '42501'; END IF;"
            " IF $2 !~ '^SCRAM-SHA-256\\$' THEN RAISE EXCEPTION"
            "  'a password reaches the store as a SCRAM-SHA-256 verifier only'; END IF;"
            " EXECUTE format('ALTER ROLE %I PASSWORD %L', r, $2); END $$"
        ),
        "annotator_drop_login(text)": (
            f"RETURNS void LANGUAGE plpgsql VOLATILE {definer} AS $$"
            " DECLARE r text; BEGIN"
            f" IF NOT {curator_check} THEN RAISE EXCEPTION"
            "  'only a curator of this store manages its logins' USING ERRCODE = '42501';"
            " END IF;"
            " SELECT db_role INTO r FROM users WHERE name = $1;"
            " IF r IS NULL THEN RETURN; END IF;"
            " UPDATE users SET db_role = NULL WHERE name = $1;"
            " EXECUTE format('DROP ROLE IF EXISTS %I', r); END $$"
        ),
    }
    out = []
    for signature, body in functions.items():
        out.append(f"CREATE FUNCTION {signature} {body}")
        out.append(f"REVOKE ALL ON FUNCTION {signature} FROM PUBLIC")
        # Any role may ask the prefix and its own membership (to be told it is no login).
        grantee = "PUBLIC" if signature in _ASKED_BY_ANYONE else _q(app)
        out.append(f"GRANT EXECUTE ON FUNCTION {signature} TO {grantee}")
    return out


_ASKED_BY_ANYONE = ("annotator_role_prefix()", "annotator_is(text)")
FUNCTIONS = (
    "annotator_role_prefix()", "annotator_is(text)", "annotator_me()", "annotator_my_name()",
    "annotator_item_states(text, uuid)", "annotator_revealed_automated(uuid)",
    "annotator_item_count(text)",
    "annotator_create_login(text)", "annotator_sync_groups(text)",
    "annotator_set_password(text, text)", "annotator_drop_login(text)",
)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
        database = bind.exec_driver_sql("SELECT current_database()").scalar_one()
        logins = [r[0] for r in bind.exec_driver_sql(
            "SELECT db_role FROM users WHERE db_role IS NOT NULL")]
        for table in POLICIES:
            for n, (cmd, _u, _c) in enumerate(POLICIES[table]):
                bind.exec_driver_sql(
                    f"DROP POLICY IF EXISTS annotator_{cmd.lower()}_{n} ON {table}")
            bind.exec_driver_sql(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
        for signature in FUNCTIONS:
            bind.exec_driver_sql(f"DROP FUNCTION IF EXISTS {signature}")
        bind.exec_driver_sql(f"GRANT CONNECT, TEMPORARY ON DATABASE {_q(database)} TO PUBLIC")
        for role in [*logins, *(f"{prefix}_{g}" for g in GROUPS), f"{prefix}_app"]:
            bind.exec_driver_sql(f"DROP OWNED BY {_q(role)}")
            bind.exec_driver_sql(f"DROP ROLE IF EXISTS {_q(role)}")
    op.drop_index("uq_users_db_role", table_name="users")
    op.execute("ALTER TABLE users DROP COLUMN db_role")
