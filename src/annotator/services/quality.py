"""Physicians' quality (issue 26): calibration and gold items, who is in calibration, and the
curator's quality snapshot, for every kind of rated work on the engine.

The figures are :mod:`annotator.agreement.quality`'s; this module reads them out of the store.
Ratings are first ratings only (hidden repeats never count between raters); the (first,
repeat) pairs give the intra-rater figures. The snapshot is for curators and seniors; a rater
sees a calibration item's reference only after submitting it (``RatingKind.feedback``).
"""

from __future__ import annotations

import csv
import json
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.agreement import quality as Q
from annotator.agreement.intervals import Interval, interval_text
from annotator.agreement.latent_class import dawid_skene
from annotator.domain.labels import LabelEdit, validate_edit
from annotator.domain.permissions import Action
from annotator.domain.suggestions import figures
from annotator.errors import NotFound, ValidationError
from annotator.services.kinds import KINDS
from annotator.services.rating.engine import Loaded
from annotator.services.rating.repeats import repeat_pairs
from annotator.services.users import get_user, require, require_user
from annotator.store import calibration
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.repeats import WITH_REPEATS
from annotator.store.schema import QUALITY_PURPOSES, Case, QualityItem, RatedWork, User
from annotator.store.settings import (
    CALIBRATION_FIRST_N,
    GOLD_ITEMS,
    GOLD_SHOWN_TO_RATERS,
    IN_CALIBRATION,
    get_setting,
    put_setting,
)

# --- marking items --------------------------------------------------------------------------


def _kind(name: str) -> Any:
    if name not in KINDS:
        raise ValidationError(f"unknown kind {name!r} (one of {', '.join(KINDS)})")
    return KINDS[name]


def _item_ref(kind_name: str, ref: str) -> Any:
    """What the kind's ``load_item`` takes: a case id as given, else a UUID."""
    if kind_name == "case":
        return ref
    try:
        return uuid.UUID(ref)
    except ValueError:
        raise ValidationError(f"{ref!r} is not an item id of kind {kind_name}") from None


def mark_item(
    project: Project, actor: str, kind_name: str, ref: str, purpose: str,
    reference: dict[str, Any] | None, reason: str,
) -> str:
    """Mark an item as a calibration or gold item with its reference answer and reason.

    ``reference`` None promotes the item's adjudicated answer (its current decisions). A
    second mark of the same purpose replaces the reference (the old one is in the history).
    Returns the item's reference as stored.
    """
    if purpose not in QUALITY_PURPOSES:
        raise ValidationError(f"unknown purpose {purpose!r} (calibration or gold)")
    if not reason.strip():
        raise ValidationError(f"a {purpose} item needs a reason")
    kind = _kind(kind_name)
    with project.tx() as session:
        require(session, actor, Action.MANAGE_QUALITY)
        if purpose == "gold" and not get_setting(session, GOLD_ITEMS):
            raise ValidationError("this project has no gold items (set gold_items first)")
        item = kind.load_item(session, _item_ref(kind_name, ref))
        key: str = kind.item_key(item)
        if reference is None:
            reference = _adjudicated(session, kind, item)
            if not reference:
                raise ValidationError(f"{ref}: nothing adjudicated to promote; give a reference")
        reference = {name: _checked(kind, item, name, value) for name, value in reference.items()}
        row = session.scalars(select(QualityItem).where(
            QualityItem.kind == kind_name, QualityItem.item_ref == key,
            QualityItem.purpose == purpose)).first()
        before = None
        if row is None:
            row = QualityItem(kind=kind_name, item_ref=key, purpose=purpose, created_by=actor)
            session.add(row)
        else:
            before = {"reference": row.reference, "reason": row.reason}
        row.reference, row.reason = dict(reference), reason.strip()
        record(session, actor, f"marked_{purpose}", key=f"{kind_name}:{key}", before=before,
               after={"reference": row.reference, "reason": row.reason})
        return key


def _checked(kind: Any, item: Any, key: str, value: Any) -> Any:
    """A reference value as the kind checks a rater's (a ValidationError names the field)."""
    if value is None:
        raise ValidationError(f"the reference of {key} needs a value")
    if kind.name == "case":  # a case's item is (case, draft content): its figures decide
        validate_edit(LabelEdit(key, kind.entered(key, value)), figures(item[1]))
        return value
    return kind.check(Loaded(None, item), key, value)


def _adjudicated(session: Session, kind: Any, item: Any) -> dict[str, Any]:
    model = kind.decision_model
    rows = session.scalars(
        select(model).where(kind.decision_of(item), model.superseded.is_(False))
    )
    return {row.key: row.value for row in rows}


def unmark_item(project: Project, actor: str, kind_name: str, ref: str, purpose: str) -> None:
    """Take an item out of calibration (or gold); the mark stays in the history."""
    kind = _kind(kind_name)
    with project.tx() as session:
        require(session, actor, Action.MANAGE_QUALITY)
        key = kind.item_key(kind.load_item(session, _item_ref(kind_name, ref)))
        row = session.scalars(select(QualityItem).where(
            QualityItem.kind == kind_name, QualityItem.item_ref == key,
            QualityItem.purpose == purpose)).first()
        if row is None:
            raise NotFound(f"{ref} is not a {purpose} item")
        record(session, actor, f"unmarked_{purpose}", key=f"{kind_name}:{key}",
               before={"reference": row.reference, "reason": row.reason})
        session.delete(row)


def set_in_calibration(project: Project, actor: str, rater: str, on: bool | None) -> None:
    """Put a rater in calibration, take them out, or (None) leave it to the first-N rule."""
    with project.tx() as session:
        require(session, actor, Action.MANAGE_QUALITY)
        get_user(session, rater)
        put_setting(session, IN_CALIBRATION, on, rater)
        record(session, actor, "calibration_set", key=rater, after=on)


def in_calibration(session: Session, rater: str) -> bool:
    """Whether the rater rates calibration items first now."""
    return calibration.in_calibration(session, get_user(session, rater))


def calibration_first(project: Project, rater: str, kind_name: str) -> list[str]:
    """The calibration items of a kind a rater in calibration rates first (their item
    references, as ``item_key`` gives them); empty when the rater is not in calibration."""
    with project.read() as session:
        return sorted(calibration.first_for(session, get_user(session, rater), kind_name))


# --- the snapshot ---------------------------------------------------------------------------


@dataclass
class RaterQuality:
    """Everything the snapshot says of one rater."""

    rater: str
    in_calibration: bool
    calibration: list[dict[str, Any]] = field(default_factory=list)
    intra: list[dict[str, Any]] = field(default_factory=list)
    gold: list[dict[str, Any]] = field(default_factory=list)
    time: list[dict[str, Any]] = field(default_factory=list)
    drift: list[dict[str, Any]] = field(default_factory=list)
    latent: list[dict[str, Any]] = field(default_factory=list)
    score: float | None = None

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class QualitySnapshot:
    """The curator's quality report: raters best first (by :attr:`RaterQuality.score`)."""

    raters: list[RaterQuality]
    items: dict[str, int]
    latent: list[dict[str, Any]]
    settings: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"raters": [r.as_json() for r in self.raters], "items": self.items,
                "latent": self.latent, "settings": self.settings,
                "ranking": [r.rater for r in self.raters]}


def _names(session: Session) -> dict[uuid.UUID, str]:
    return {u.id: u.name for u in session.scalars(select(User))}


def _keys(session: Session, kind: str, rows: list[RatedWork]) -> dict[uuid.UUID, str]:
    """Each row's item reference as the kind's ``item_key`` gives it."""
    if kind == "case":
        cases: dict[uuid.UUID, str] = {
            pk: case_id for pk, case_id in session.execute(select(Case.id, Case.case_id))}
        return {r.id: str(cases[r.case_pk]) for r in rows}  # type: ignore[attr-defined]
    column = "task_id" if kind == "sme" else "item_id"
    return {r.id: str(getattr(r, column)) for r in rows}


def _ratings(session: Session, kind: str, names: dict[uuid.UUID, str]) -> list[Q.Rating]:
    rows = list(session.scalars(
        select(RatedWork).where(RatedWork.kind == kind, RatedWork.state == "submitted",
                                RatedWork.withdrawn_at.is_(None))
    ))
    keys = _keys(session, kind, rows)
    return [_rating(kind, keys[r.id], names[r.rater_id], r) for r in rows]


def _rating(kind: str, item: str, rater: str, row: RatedWork) -> Q.Rating:
    values = dict(row.submitted or {})
    seconds = Q.plain(values.get("active_seconds", row.values.get("active_seconds")))
    if seconds is None:
        seconds = row.active_seconds
    return Q.Rating(kind, item, rater, values, row.submitted_at,
                    float(seconds) if Q.is_score(seconds) else None)


def _tagged(kind: str, comparisons: list[Q.Comparison]) -> list[dict[str, Any]]:
    return [{"kind": kind, **c.as_json()} for c in comparisons]


def _against(ratings: list[Q.Rating], refs: dict[str, dict[str, Any]]) -> dict[
    str, list[Q.Pair]
]:
    out: dict[str, list[Q.Pair]] = defaultdict(list)
    for r in ratings:
        if r.item in refs:
            out[r.rater].append(Q.Pair(r.item, r.values, refs[r.item]))
    return out


def _latent(kind: str, ratings: list[Q.Rating]) -> tuple[list[dict[str, Any]],
                                                         dict[str, list[dict[str, Any]]]]:
    """Dawid-Skene per category family of a kind: the family's summary and each rater's
    estimated accuracy."""
    summary: list[dict[str, Any]] = []
    per_rater: dict[str, list[dict[str, Any]]] = defaultdict(list)
    families = sorted({f for r in ratings for f, keys in Q.by_family(r.values).items()
                       if f not in Q.RANKING_FAMILIES
                       and not all(Q.is_score(v) for v in keys.values())})
    for family in families:
        units, raters, categories, matrix = Q.category_codes(ratings, family)
        if len(raters) < 2 or len(categories) < 2:
            continue
        estimate = dawid_skene(matrix, len(categories))
        if estimate is None:
            continue
        accuracy = estimate.rater_accuracy()
        contested = estimate.contested()
        summary.append({"kind": kind, "family": family, "units": len(units),
                        "raters": len(raters), "categories": categories,
                        "contested": int(contested.sum()), "converged": estimate.converged})
        for j, rater in enumerate(raters):
            rated = int((~np.isnan(matrix[:, j])).sum())
            per_rater[rater].append({"kind": kind, "family": family, "rated": rated,
                                     "accuracy": float(accuracy[j])})
    return summary, per_rater


def _score(q: RaterQuality) -> float | None:
    """The rater's headline: the mean of what is measured of them among calibration, gold
    and intra-rater agreement (shares of exact or order agreement) and the latent-class
    accuracy (mean over families)."""
    parts = []
    for rows in (q.calibration, q.gold, q.intra):
        shares = [r["agreement"]["value"] for r in rows
                  if r["scale"] != "scores" and r["agreement"]["value"] is not None]
        if shares:
            parts.append(float(np.mean(shares)))
    if q.latent:
        parts.append(float(np.mean([r["accuracy"] for r in q.latent])))
    return float(np.mean(parts)) if parts else None


def snapshot(project: Project, actor: str) -> QualitySnapshot:
    """The quality of every rater on every kind of rated work (curators and seniors)."""
    with project.read() as session:
        require_user(session, actor, Action.READ_QUALITY)
        names = _names(session)
        quality: dict[str, RaterQuality] = {}

        def of(rater: str) -> RaterQuality:
            if rater not in quality:
                quality[rater] = RaterQuality(rater, in_calibration(session, rater))
            return quality[rater]

        items = {"calibration": 0, "gold": 0, "repeats_done": 0, "repeats_waiting": 0}
        latent_summary: list[dict[str, Any]] = []
        all_ratings: list[Q.Rating] = []
        timed: list[Q.Rating] = []  # time on task counts every item done, repeats too
        for kind in KINDS:
            ratings = _ratings(session, kind, names)
            all_ratings += ratings
            marks = list(session.scalars(select(QualityItem).where(QualityItem.kind == kind)))
            for purpose in QUALITY_PURPOSES:
                refs = {m.item_ref: m.reference for m in marks if m.purpose == purpose}
                items[purpose] += len(refs)
                for rater, pairs in _against(ratings, refs).items():
                    rows = _tagged(kind, Q.compare_all(pairs, against_reference=True))
                    getattr(of(rater), purpose).extend(rows)
            repeats = repeat_pairs(session, kind)
            keys = _keys(session, kind, [first for first, _r in repeats])
            by_rater: dict[str, list[Q.Pair]] = defaultdict(list)
            for first, repeat in repeats:
                by_rater[names[first.rater_id]].append(
                    Q.Pair(keys[first.id], first.submitted or {}, repeat.submitted or {}))
                timed.append(_rating(kind, keys[first.id], names[first.rater_id], repeat))
            for rater, rater_pairs in by_rater.items():
                of(rater).intra.extend(
                    _tagged(kind, Q.compare_all(rater_pairs, against_reference=False)))
            items["repeats_done"] += len(repeats)
            summary, per_rater = _latent(kind, ratings)
            latent_summary += summary
            for rater, rows in per_rater.items():
                of(rater).latent.extend(rows)
        items["repeats_waiting"] = int(session.scalar(
            select(func.count()).select_from(RatedWork)
            .where(RatedWork.repeat_of.is_not(None), RatedWork.state != "submitted")
            .execution_options(**WITH_REPEATS)) or 0)
        for t in Q.time_on_task(all_ratings + timed):
            of(t.rater).time.append(t.as_json())
        for d in Q.drift(all_ratings):
            of(d.rater).drift.append(d.as_json())
        for q in quality.values():
            q.score = _score(q)
        settings = {"calibration_first_n": get_setting(session, CALIBRATION_FIRST_N),
                    "gold_items": get_setting(session, GOLD_ITEMS),
                    "gold_shown_to_raters": get_setting(session, GOLD_SHOWN_TO_RATERS)}
    ranked = sorted(quality.values(),
                    key=lambda q: (q.score is None, -(q.score or 0.0), q.rater))
    return QualitySnapshot(ranked, items, latent_summary, settings)


# --- writing it -------------------------------------------------------------------------------

SUMMARY_COLUMNS = ("rank", "rater", "score", "in_calibration", "calibration", "gold", "intra",
                   "latent_accuracy", "median_seconds", "fast_items", "drift_max")


def _mean_share(rows: list[dict[str, Any]]) -> float | None:
    shares = [r["agreement"]["value"] for r in rows
              if r["scale"] != "scores" and r["agreement"]["value"] is not None]
    return round(float(np.mean(shares)), 4) if shares else None


def summary_rows(snap: QualitySnapshot) -> list[dict[str, Any]]:
    """One row per rater, best first: the figures the view and the CSV show."""
    rows = []
    for rank, q in enumerate(snap.raters, 1):
        medians = [t["median_seconds"] for t in q.time if t["median_seconds"] is not None]
        rows.append({
            "rank": rank, "rater": q.rater,
            "score": None if q.score is None else round(q.score, 4),
            "in_calibration": q.in_calibration,
            "calibration": _mean_share(q.calibration), "gold": _mean_share(q.gold),
            "intra": _mean_share(q.intra),
            "latent_accuracy": round(float(np.mean([r["accuracy"] for r in q.latent])), 4)
            if q.latent else None,
            "median_seconds": round(float(np.median(medians)), 1) if medians else None,
            "fast_items": sum(len(t["fast"]) for t in q.time),
            "drift_max": max((d["distance"] for d in q.drift), default=None),
        })
    return rows


def write_quality(snap: QualitySnapshot, folder: Path) -> list[Path]:
    """``quality.json`` (everything) and ``quality.csv`` (one row per rater) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = folder / "quality.json", folder / "quality.csv"
    json_path.write_text(json.dumps(snap.as_json(), indent=2, ensure_ascii=False, default=str),
                         encoding="utf-8")
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=SUMMARY_COLUMNS)
        writer.writeheader()
        writer.writerows(summary_rows(snap))
    return [json_path, csv_path]


def set_quality_settings(
    project: Project, actor: str, *, first_n: int | None = None, gold: bool | None = None,
    show_gold: bool | None = None,
) -> dict[str, Any]:
    """Change the calibration and gold settings given (None: unchanged); returns all three."""
    if first_n is not None and first_n < 0:
        raise ValidationError("--first-n must be 0 or more")
    with project.tx() as session:
        require(session, actor, Action.MANAGE_QUALITY)
        if first_n is not None:
            record(session, actor, "setting", key=CALIBRATION_FIRST_N.key,
                   before=get_setting(session, CALIBRATION_FIRST_N), after=first_n)
            put_setting(session, CALIBRATION_FIRST_N, first_n)
        for option, flag in ((GOLD_ITEMS, gold), (GOLD_SHOWN_TO_RATERS, show_gold)):
            if flag is not None:
                record(session, actor, "setting", key=option.key,
                       before=get_setting(session, option), after=flag)
                put_setting(session, option, flag)
        return {"calibration_first_n": get_setting(session, CALIBRATION_FIRST_N),
                "gold_items": get_setting(session, GOLD_ITEMS),
                "gold_shown_to_raters": get_setting(session, GOLD_SHOWN_TO_RATERS)}


def figure_text(figure: dict[str, Any] | None) -> str:
    """A figure as every report prints one (:func:`~annotator.agreement.intervals.
    interval_text`): ``0.83 [0.70, 0.95] n=12``, or ``(n=4: too few to estimate)``."""
    if not figure:
        return interval_text(None, None, 0)
    ci = None if figure.get("low") is None else Interval(figure["low"], figure["high"],
                                                          figure["n"])
    return interval_text(figure["value"], ci, figure["n"])


DETAIL_COLUMNS = ("measured by", "kind", "family", "scale", "agreement", "chance-corrected")
MEASURED_BY = {"calibration": "calibration items", "gold": "gold items",
               "intra": "hidden repeats"}
SCALE_FIGURE = {"categories": "exact agreement", "scores": "mean absolute difference",
                "ranking": "pairwise order agreement"}


def detail_rows(q: RaterQuality) -> list[list[str]]:
    """The rater's figures per family, as the Quality view's detail table shows them."""
    rows = []
    for source in ("calibration", "gold", "intra"):
        for r in getattr(q, source):
            chance = r["chance_corrected"]
            rows.append([
                MEASURED_BY[source], r["kind"], r["family"],
                f"{r['scale']} ({SCALE_FIGURE[r['scale']]})",
                figure_text(r["agreement"]),
                "-" if chance is None else f"{r['coefficient']} {figure_text(chance)}",
            ])
    for r in q.latent:
        rows.append(["latent class (Dawid-Skene)", r["kind"], r["family"], "categories",
                     f"estimated accuracy {r['accuracy']:.2f} over {r['rated']} ratings", "-"])
    for d in q.drift:
        p = "-" if d["p_value"] is None else f"{d['p_value']:.3f}"
        rows.append(["drift (earlier vs later half)", "", d["family"], "categories",
                     f"distance {d['distance']:.2f} over {d['n']} labels", f"chi-square p={p}"])
    for t in q.time:
        fast = ", ".join(t["fast"]) or "none"
        median_text = "-" if t["median_seconds"] is None else f"{t['median_seconds']:.0f} s"
        rows.append(["time on task", t["kind"], "", "",
                     f"median {median_text} over {t['timed']} items",
                     f"much faster than their median: {fast}"])
    return rows
