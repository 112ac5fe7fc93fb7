"""Every project setting, declared once with its type and default (Picard's ``options.py``).

A project setting is one row of the ``settings`` table (a key and a JSON value). Code names
a setting by its declaration here, never by a string, so a typo is an import error and a
value of the wrong type is refused before it is written. A *family* is a key prefix with
one setting per name (``card.<field>``, ``resume:<user>``). Reading a setting never
written (or cleared to null) gives its default; an undeclared key is refused
(``UnknownSetting``), so a setting cannot be added anywhere but here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from annotator.errors import ValidationError
from annotator.store.schema import Setting

T = TypeVar("T")


class UnknownSetting(ValidationError):
    """A key no declaration here names."""


@dataclass(frozen=True)
class Option(Generic[T]):
    """One setting (or, with ``family``, a key prefix with one setting per name)."""

    key: str
    kind: type[Any]
    default: T
    doc: str
    family: bool = False

    def full_key(self, name: str = "") -> str:
        if self.family != bool(name):
            raise UnknownSetting(
                f"setting {self.key!r} " + ("needs a name" if self.family else "takes no name")
            )
        return self.key + name

    def check(self, value: Any) -> Any:
        """``value`` if it has this setting's type (None clears); else ValidationError."""
        if value is None:
            return None
        if (isinstance(value, bool) and self.kind is not bool) or not isinstance(value, self.kind):
            raise ValidationError(
                f"setting {self.key!r} takes {self.kind.__name__}, not {type(value).__name__}"
            )
        return value


OPTIONS: dict[str, Option[Any]] = {}


def _declare(option: Option[T]) -> Option[T]:
    if option.key in OPTIONS:
        raise ValueError(f"setting {option.key!r} declared twice")
    OPTIONS[option.key] = option
    return option


# -- identity (written when the project is created, kept forever) ---------------------------
PROJECT_ID = _declare(Option[str]("project_id", str, "", "the project's UUID"))
DEID_SEED = _declare(Option[str](
    "deid_seed", str, "", "seed of the de-identification: one project maps identifiers alike"
))
CREATED_WITH = _declare(Option[str]("created_with", str, "", "app version that made it"))
PROJECT_NAME = _declare(Option[str | None]("project_name", str, None, "shown as the card name"))
LOCAL_USER = _declare(Option[str | None](
    "local_user", str, None, "who uses this project on its own machine (a single-user project)"
))
# -- review --------------------------------------------------------------------------------
REVIEW_REASON_CODES = _declare(Option[list[str] | None](
    "review_reason_codes", list, None, "the project's own short list of reason codes"
))
# -- the curator's desk ----------------------------------------------------------------------
STUCK_AFTER_DAYS = _declare(Option[int](
    "stuck_after_days", int, 7, "the desk lists open work nobody has edited for this many days"
))

# -- physicians' quality (issue 26) ---------------------------------------------------------
CALIBRATION_FIRST_N = _declare(Option[int](
    "calibration_first_n", int, 0,
    "a rater is in calibration until they have submitted this many items (0: only by hand)"
))
IN_CALIBRATION = _declare(Option[bool | None](
    "in_calibration:", bool, None, "per user: the curator put them in (or took them out of) "
    "calibration; unset: by calibration_first_n", True
))
GOLD_ITEMS = _declare(Option[bool](
    "gold_items", bool, False, "the project mixes gold items (known answers) into queues"
))
GOLD_SHOWN_TO_RATERS = _declare(Option[bool](
    "gold_shown_to_raters", bool, False,
    "a rater sees a gold item's answer beside their own after submitting it"
))
# -- the offline round trip (an annotator's project made by unbundle) -----------------------
OFFLINE_PROJECT = _declare(Option[dict[str, Any] | None](
    "offline_project", dict, None, "the offline marker: bundle, annotator, curator project"
))
PACKAGE_SEQUENCE = _declare(Option[int](
    "package_sequence", int, 0, "sequence number of the last package written"
))
PACKAGED_CHANGES = _declare(Option[int](
    "packaged_changes", int, 0, "annotator history entries already in a package"
))
LAST_PACKAGE = _declare(Option[dict[str, Any] | None](
    "last_package", dict, None, "id, sequence, time and path of the last package written"
))
PACKAGE_SECRET = _declare(Option[str | None](
    "package_secret", str, None, "the bundle's secret packages are signed with"
))
BUNDLE_KEY = _declare(Option[dict[str, Any] | None](
    "bundle_key:", dict, None, "per bundle id: its annotator and derived signing key", True
))
# -- families of the workspace, the card and caches -----------------------------------------
CARD = _declare(Option[str | None](
    "card.", str, None, "per benchmark-card field: the curator's text", True
))
RESUME = _declare(Option[dict[str, Any]](
    "resume:", dict, {}, "per user: last case, exam and viewer state", True
))
VIEW_FILTERS = _declare(Option[dict[str, Any]](
    "filters:", dict, {}, "per list and user: the filters chosen (kept across restarts)", True
))
AGREEMENT_CACHE = _declare(Option[dict[str, Any] | None](
    "cache:agreement:", dict, None, "per report kind: the cached report and its input hash", True
))


def option_for(key: str) -> tuple[Option[Any], str]:
    """The declaration of a stored key and the name within its family ("" for a plain one)."""
    if key in OPTIONS and not OPTIONS[key].family:
        return OPTIONS[key], ""
    for prefix, option in OPTIONS.items():
        if option.family and key.startswith(prefix) and len(key) > len(prefix):
            return option, key[len(prefix):]
    raise UnknownSetting(f"{key!r} is not a project setting")


def get_setting(session: Session, option: Option[T], name: str = "") -> T:
    """The value in the caller's transaction, or the declared default."""
    row = session.get(Setting, option.full_key(name))
    if row is None or row.value is None:
        return copy.deepcopy(option.default)  # a mutable default is never shared
    value: T = row.value
    return value


def get_settings(session: Session, *wanted: tuple[Option[Any], str]) -> list[Any]:
    """Several values (each ``(option, name)``) in one query, as :func:`get_setting` gives
    each: read where a caller asks for a few together on every refresh."""
    keys = [option.full_key(name) for option, name in wanted]
    rows = {row.key: row.value for row in session.scalars(
        select(Setting).where(Setting.key.in_(keys)))}
    return [copy.deepcopy(option.default) if rows.get(key) is None else rows[key]
            for (option, _), key in zip(wanted, keys, strict=True)]


def put_setting(session: Session, option: Option[T], value: T, name: str = "") -> None:
    """Set a value inside the caller's transaction (checked against the declaration)."""
    key = option.full_key(name)
    value = option.check(value)
    row = session.get(Setting, key)
    if row is None:
        session.add(Setting(key=key, value=value))
    else:
        row.value = value


def clear_family(session: Session, option: Option[Any]) -> None:
    """Drop every setting of a family (e.g. every cached report)."""
    if not option.family:
        raise UnknownSetting(f"setting {option.key!r} is not a family")
    session.execute(delete(Setting).where(Setting.key.startswith(option.key)))
