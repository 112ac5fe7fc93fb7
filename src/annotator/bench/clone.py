"""Grow a bench project to benchmark scale by cloning its cases under new ids.

``bench-scale`` builds 1,000 cases through the services (:mod:`annotator.bench.synth`), then
calls :func:`clone_cases` to copy every row that belongs to those cases (the case, its
revisions and images, rated work, decisions, review records, reviewer letters and history)
once per extra thousand, with new ids throughout, and the bench's SME review items
(``bench-NNNNN-sme``, :mod:`annotator.bench.sme_items`) with their tasks and verdicts. Each
copy is one more "site": its cases and SME items get new ids (``bench-01001`` ...) and its
three annotators are new users (``Dr Bench 01 · site 002``), so an annotator's own queues
stay the size a physician really works through,
while the curator's and the seniors' views (status, review queue, agreement, export) grow
with the project. Images are the same content, which the content-addressed store keeps once.
History rows are appended to the hash chain in their original order, so ``history-verify``
still passes and ``repair --dry-run`` finds nothing to repair (the project counters are
recounted once after the copies, which bypass the ORM, and each copy marks its cases' agreement
statistics stale). On a walled PostgreSQL store each new user gets a login role of their own,
as ``users add`` gives one.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Table, insert, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.types import JSON, String, Text, Uuid

from annotator.errors import ProjectError
from annotator.review.conflicts import fingerprint
from annotator.store import agreement_stale, counts
from annotator.store.chain import GENESIS, HEAD_ID, row_hash
from annotator.store.db_roles import create_login, walled
from annotator.store.project import Project
from annotator.store.schema import Base

CASE_ID = re.compile(r"bench-(\d{5})(?!\d)")
SME_ITEM = re.compile(r"bench-\d{5}-sme")
UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ANNOTATOR = re.compile(r"Dr Bench (\d{2})(?![\d ])")
CHUNK = 5_000  # rows per INSERT batch
TABLES = Base.metadata.tables


@dataclass(frozen=True)
class BaseRows:
    """The rows of the base cases, read once, in the order they are inserted."""

    cases: int
    tables: list[tuple[Table, list[dict[str, Any]]]]
    history: list[dict[str, Any]]  # in chain order
    sme_positions: int  # the highest position of the cloned SME items


def clone_cases(project: Project, target_cases: int,
                progress: Callable[[str], None] | None = None) -> int:
    """Clone the project's ``bench-NNNNN`` cases until it holds ``target_cases``; returns the
    number of cases now in the store. The base must be a whole number of copies short."""
    say = progress or (lambda _text: None)
    with project.read() as session:
        base = _read_base(session.connection())
    if base.cases == 0 or target_cases % base.cases:
        raise ProjectError(f"{target_cases} cases is not a multiple of the {base.cases} "
                           "bench cases to clone")
    copies = target_cases // base.cases
    for copy in range(1, copies):
        with project.tx() as session:
            _write_copy(session.connection(), base, copy)
            if walled(session):
                for user in base.tables[0][1]:
                    create_login(session, _renamer(base.cases, copy)(user["name"]))
        if copy % 5 == 0 or copy == copies - 1:
            say(f"cloned {(copy + 1) * base.cases}/{target_cases} cases")
    with project.tx() as session:  # the copies bypassed the ORM: count them once, at the end
        conn = session.connection()
        counts.apply(conn, {k: actual - stored
                            for k, (stored, actual) in counts.drift(conn).items()})
        if conn.dialect.name == "postgresql":
            # Rows written in bulk have no planner statistics until autovacuum's next round
            # (or never, where it is off): the planner then reads every rating to find a
            # page's 50 cases' (90 ms at 100,000 cases, against 0.6 ms with them).
            conn.execute(text("ANALYZE"))
    return copies * base.cases


def _read_base(conn: Connection) -> BaseRows:
    tables = TABLES
    cases = [dict(r._mapping) for r in conn.execute(select(TABLES["cases"]))]
    case_pks = {r["id"] for r in cases}
    if any(not CASE_ID.fullmatch(r["case_id"]) for r in cases):
        raise ProjectError("only a bench project (cases bench-NNNNN) can be cloned")
    revisions = _rows(conn, tables["case_revisions"], "case_pk", case_pks)
    revision_pks = {r["id"] for r in revisions}
    # The bench's annotators by their generated names (the curator and senior are shared);
    # a copy's people get their logins (and passwords) anew.
    users = [dict(r._mapping, db_role=None, password_hash=None)
             for r in conn.execute(select(TABLES["users"])) if ANNOTATOR.fullmatch(r.name)]
    cloned_users = {r["id"] for r in users}
    # The bench's SME items and tasks (the benchmarks they are reviewed against are shared).
    items = [dict(r._mapping) for r in conn.execute(select(tables["sme_items"]))
             if SME_ITEM.fullmatch(r.item_id)]
    tasks = _rows(conn, tables["sme_tasks"], "item_pk", {r["id"] for r in items})
    task_pks = {r["id"] for r in tasks}
    work = _rows(conn, tables["rated_work"], "case_pk", case_pks) \
        + _rows(conn, tables["rated_work"], "task_id", task_pks)
    ordered: list[tuple[Table, list[dict[str, Any]]]] = [
        (tables["users"], users),
        (tables["user_roles"], _rows(conn, tables["user_roles"], "user_id", cloned_users)),
        (tables["cases"], cases),
        (tables["case_revisions"], revisions),
        (tables["case_images"], _rows(conn, TABLES["case_images"], "revision_id", revision_pks)),
        (tables["detected_items"], _rows(conn, tables["detected_items"], "case_pk", case_pks)),
        (tables["review_records"], _rows(conn, tables["review_records"], "case_pk", case_pks)),
        (tables["reviewer_letters"],
         _rows(conn, tables["reviewer_letters"], "case_pk", case_pks)),
        (tables["sme_items"], items),
        (tables["sme_tasks"], tasks),
        (tables["rated_work"], work),
        (tables["decisions"], _rows(conn, tables["decisions"], "case_pk", case_pks)),
        # The review queue's keys: a copy has the same labels, so the same key (under its
        # new case id); the writes keep them from then on.
        (tables["queue_keys"], _rows(conn, tables["queue_keys"], "case_pk", case_pks)),
        # The SME tasks' keys likewise: a copied task has the same verdicts.
        (tables["sme_task_keys"], _rows(conn, tables["sme_task_keys"], "task_id", task_pks)),
    ]
    history_table = TABLES["history"]
    work_pks = {r["id"] for r in work}
    tasks_text = {str(t) for t in task_pks}
    item_ids = {r["item_id"] for r in items}

    def cloned(row: dict[str, Any]) -> bool:  # a base case's, or the bench SME review's
        detail = row["detail"] if isinstance(row["detail"], dict) else {}
        return (row["case_pk"] in case_pks or row["annotation_id"] in work_pks
                or detail.get("task") in tasks_text
                or (row["action"] == "sme_item_imported" and row["key"] in item_ids))

    history = [dict(r._mapping) for r in conn.execute(
        select(history_table).order_by(history_table.c.seq))]
    positions = max((r["position"] for r in items), default=0)
    return BaseRows(len(cases), ordered, [h for h in history if cloned(h)], positions)


def _rows(conn: Connection, table: Table, column: str, keys: set[Any]) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(select(table)) if r._mapping[column] in keys]


def _write_copy(conn: Connection, base: BaseRows, copy: int) -> None:
    ids: dict[Any, uuid.UUID] = {}
    for table, rows in base.tables:
        for column in table.primary_key.columns:
            if isinstance(column.type, Uuid) and column.name == "id":
                ids.update((r["id"], uuid.uuid4()) for r in rows)
    rename = _renamer(base.cases, copy)
    named = {str(old): str(new) for old, new in ids.items()}  # ids inside JSON, as text

    def clone(row: dict[str, Any], kinds: dict[str, str]) -> dict[str, Any]:
        out = _clone_row(row, kinds, ids, lambda text: UUID_TEXT.sub(
            lambda m: named.get(m[0], m[0]), rename(text)))
        if "position" in out and "item_id" in out:  # SME items: each copy after the last
            out["position"] += copy * base.sme_positions
        return out

    copied = [(table, [clone(r, _column_kinds(table)) for r in rows])
              for table, rows in base.tables]
    _fresh_fingerprints({t.name: rows for t, rows in base.tables},
                        {t.name: rows for t, rows in copied})
    for table, rows in copied:
        _insert(conn, table, rows)
    _append_history(conn, base.history, _column_kinds(TABLES["history"]), clone)
    # The copies bypass the ORM: their agreement statistics are marked stale here.
    cases = next(rows for table, rows in base.tables if table.name == "cases")
    agreement_stale.mark(conn, (ids[r["id"]] for r in cases))


def _fresh_fingerprints(base: dict[str, list[dict[str, Any]]],
                        copy: dict[str, list[dict[str, Any]]]) -> None:
    """A copied case's detection is as fresh as its base case's: the review record's
    fingerprint (the draft revision and the submitted labels by rater id, which the copy
    renamed) is computed anew from the copy's rows; a base record already stale stays stale.
    Otherwise every reviewed copy would read as needing detection again (``repair``)."""
    def submitted(work: list[dict[str, Any]]) -> dict[Any, dict[str, dict[str, Any]]]:
        out: dict[Any, dict[str, dict[str, Any]]] = {}
        for w in work:
            if (w["kind"] == "case" and w["state"] == "submitted" and w["withdrawn_at"] is None
                    and w["repeat_of"] is None and w["case_pk"] is not None):
                out.setdefault(w["case_pk"], {})[str(w["rater_id"])] = dict(w["submitted"] or {})
        return out

    def revisions(cases: list[dict[str, Any]]) -> dict[Any, str]:
        return {c["id"]: str(c["current_revision_id"]) for c in cases}

    was, now = submitted(base["rated_work"]), submitted(copy["rated_work"])
    was_rev, now_rev = revisions(base["cases"]), revisions(copy["cases"])
    for old, new in zip(base["review_records"], copy["review_records"], strict=True):
        if old["fingerprint"] == fingerprint(was_rev[old["case_pk"]], was.get(old["case_pk"], {})):
            new["fingerprint"] = fingerprint(now_rev[new["case_pk"]], now.get(new["case_pk"], {}))


def _renamer(cases: int, copy: int) -> Callable[[str], str]:
    site = f" · site {copy + 1:03d}"

    def rename(text: str) -> str:
        text = CASE_ID.sub(lambda m: f"bench-{int(m[1]) + copy * cases:05d}", text)
        return ANNOTATOR.sub(lambda m: f"Dr Bench {m[1]}{site}", text)

    return rename


def _column_kinds(table: Table) -> dict[str, str]:
    kinds = {}
    for column in table.columns:
        if isinstance(column.type, Uuid):
            kinds[column.name] = "uuid"
        elif isinstance(column.type, JSON):
            kinds[column.name] = "json"
        elif isinstance(column.type, String | Text):
            kinds[column.name] = "text"
    return kinds


def _clone_row(row: dict[str, Any], kinds: dict[str, str], ids: dict[Any, uuid.UUID],
               rename: Callable[[str], str]) -> dict[str, Any]:
    out = dict(row)
    for name, kind in kinds.items():
        value = row[name]
        if value is None:
            continue
        if kind == "uuid":
            out[name] = ids.get(value, value)
        elif kind == "text":
            out[name] = rename(value)
        else:
            out[name] = json.loads(rename(json.dumps(value)))
    return out


def _insert(conn: Connection, table: Table, rows: Iterable[dict[str, Any]]) -> None:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= CHUNK:
            conn.execute(insert(table), batch)
            batch = []
    if batch:
        conn.execute(insert(table), batch)


def _append_history(
    conn: Connection, history: list[dict[str, Any]], kinds: dict[str, str],
    clone: Callable[[dict[str, Any], dict[str, str]], dict[str, Any]],
) -> None:
    """Append the copy's history after the chain head, hashed as the app hashes a row."""
    seq, last = _head(conn)
    rows = []
    for original in history:
        row = clone(original, kinds)
        row["id"] = uuid.uuid4()
        seq += 1
        row["seq"], row["prev_hash"] = seq, last
        row["row_hash"] = last = row_hash(last, SimpleNamespace(**row))
        rows.append(row)
    _insert(conn, TABLES["history"], rows)
    conn.execute(update(TABLES["history_chain"]).where(TABLES["history_chain"].c.id == HEAD_ID)
                 .values(seq=seq, hash=last))


def _head(conn: Connection) -> tuple[int, str]:
    """The chain head as :func:`annotator.store.chain.head` reads it, locked for this copy."""
    table = TABLES["history_chain"]
    found = conn.execute(select(table.c.seq, table.c.hash).where(table.c.id == HEAD_ID)
                         .with_for_update()).first()
    return (0, GENESIS) if found is None else (int(found[0]), str(found[1]))
