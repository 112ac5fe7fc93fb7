"""croissant.json: Croissant 1.1 metadata with Responsible-AI fields for a release.

Every distributed metadata file is a FileObject with its SHA-256; the images are FileSets
(their checksums are in images.csv and MANIFEST.sha256). Record sets: ``cases`` (from
release.json: the case fields plus its exams, steps, preferred order and rubrics),
``images`` (from images.csv) and ``counts`` (inline, the card's numbers, so
``validate`` can compare them with the JSON). All ``rai:`` values are text, as Croissant
requires ("2", not 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotator.export.counts import COUNT_LABELS
from annotator.export.layout import IMAGES_CSV, RELEASE_JSON, sha256_hex
from annotator.export.settings import CardSettings

CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
COUNTS_RECORD_SET = "counts"
# The project history's hash chain head at export (published so a rewrite shows).
HISTORY_HEAD_KEY = "historyChainHead"
ENCODINGS = {".json": "application/json", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
             ".md": "text/markdown", ".html": "text/html", ".png": "image/png",
             ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".dcm": "application/dicom"}
CASE_FIELDS = (("case_id", "The case id (unique)."),
               ("clinical_history", "The only case text the evaluated model sees at turn 0."),
               ("final_diagnosis", "Gold diagnosis."),
               ("difficulty", "normal, hard or extreme_hard."),
               ("rarity", "common, rare or extreme_rare."))
# Nested case content, one array (or object) field each, read with a per-item jsonPath:
# (field, release.json key, description, [(sub-field, jsonPath inside the item, dataType)]).
_META = [(k, f"meta_info.{k}", "sc:Text") for k in (
    "modality", "acquisition", "view", "imaged_region", "contrast", "time_past")]
NESTED_FIELDS: tuple[tuple[str, str, str, list[tuple[str, str, str]]], ...] = (
    ("exams", "imaging_examinations",
     "The requestable imaging examinations (evidence units) with their metadata.",
     [("figure", "figure", "sc:Text"), ("image_caption", "image_caption", "sc:Text"), *_META]),
    ("steps", "diagnostic_steps",
     "One diagnostic step per exam: importance (only 'essential' counts as essential).",
     [("source", "source", "sc:Text"), ("essential", "essential", "sc:Text"),
      ("step", "step", "sc:Text"), ("reason", "reason", "sc:Text")]),
    ("order", "imaging_examinations",
     "Gold preferred order: integer stages, equal stages are ties, null is unranked.",
     [("figure", "figure", "sc:Text"), ("preferred_order", "preferred_order", "sc:Integer")]),
)
RUBRIC_FIELDS: tuple[tuple[str, str], ...] = (
    ("diagnosis_reference", "Diagnosis.reference_answer"),
    *((f"diagnosis_{n}", f"Diagnosis.'{n}'") for n in "3210"),
    ("localisation_laterality", "Localisation.reference_answer.Laterality"),
    ("localisation_organ_region", "Localisation.reference_answer.'Organ/Region'"),
    ("localisation_substructure",
     "Localisation.reference_answer.'Specific Substructure/Segment'"),
    *((f"localisation_{n}", f"Localisation.'{n}'") for n in "3210"),
)
IMAGE_FIELDS = ("image_id", "case_id", "figure", "path", "caption", "source_url",
                "source_case_url", "sha256", "media_type")


def context() -> dict[str, Any]:
    """The Croissant 1.1 JSON-LD context (as mlcroissant writes it)."""
    cr = {k: f"cr:{k}" for k in (
        "arrayShape", "citeAs", "column", "containedIn", "equivalentProperty", "extract",
        "field", "fileProperty", "fileObject", "fileSet", "format", "includes", "isArray",
        "isLiveDataset", "jsonPath", "key", "md5", "parentField", "path", "recordSet",
        "references", "regex", "repeated", "replace", "samplingRate", "separator", "source",
        "subField", "transform")}
    return {
        "@language": "en", "@vocab": "https://schema.org/", **cr,
        "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/",
        "rai": "http://mlcommons.org/croissant/RAI/",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "dct": "http://purl.org/dc/terms/",
        "description": {"@container": "@language"},
        "examples": {"@id": "cr:examples", "@type": "@json"},
        "name": {"@container": "@language"}, "sc": "https://schema.org/",
    }


def _encoding(path: str) -> str:
    suffix = path[path.rfind("."):].lower() if "." in path else ""
    return ENCODINGS.get(suffix, "application/octet-stream")


def _file_object(path: str, data: bytes) -> dict[str, Any]:
    return {"@type": "cr:FileObject", "@id": path, "name": path, "contentUrl": path,
            "contentSize": f"{len(data)} B", "encodingFormat": _encoding(path),
            "sha256": sha256_hex(data)}


def _field(record_set: str, name: str, source: dict[str, Any], data_type: str = "sc:Text",
           description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"@type": "cr:Field", "@id": f"{record_set}/{name}", "name": name}
    if description:
        out["description"] = description
    out["dataType"] = data_type
    if source:
        out["source"] = source
    return out


def build_croissant(
    settings: CardSettings,
    *,
    date: str | None,
    files: Mapping[str, bytes],
    image_sets: Mapping[str, list[str]],
    counts: Mapping[str, int],
    rai: Mapping[str, str | list[str]],
    history_head: str = "",
) -> dict[str, Any]:
    """The croissant.json document. ``files`` are the metadata files (path -> bytes);
    ``image_sets`` maps a media type to glob patterns of the image files of that type."""
    doc: dict[str, Any] = {"@context": context(), "@type": "sc:Dataset", "name": settings.name,
                           "description": settings.description or settings.name,
                           "conformsTo": CONFORMS_TO,
                           "citeAs": settings.citation or f"{settings.name} v{settings.version}",
                           "version": settings.version}
    if settings.license:
        doc["license"] = settings.license
    if settings.dataset_url:
        doc["url"] = settings.dataset_url
    if date:
        doc["datePublished"] = date
    keywords = ["medical imaging", "diagnostic workup", "benchmark"]
    doc["keywords"] = keywords + ([settings.domain] if settings.domain else [])
    doc.update({f"rai:{k}": v for k, v in rai.items()})
    if history_head:
        doc[HISTORY_HEAD_KEY] = history_head
    distribution = [_file_object(p, files[p]) for p in sorted(files)]
    for media_type, patterns in sorted(image_sets.items()):
        for pattern in patterns:
            distribution.append({"@type": "cr:FileSet", "@id": f"fileset:{pattern}",
                                 "name": pattern, "encodingFormat": media_type,
                                 "includes": pattern})
    doc["distribution"] = distribution
    doc["recordSet"] = [_cases(), _images(), _counts(counts)]
    return doc


def _json_source(path: str, item_path: str = "") -> dict[str, Any]:
    source: dict[str, Any] = {"fileObject": {"@id": RELEASE_JSON},
                              "extract": {"jsonPath": path}}
    if item_path:
        source["transform"] = {"jsonPath": item_path}
    return source


def _nested(name: str, key: str, description: str, subs: list[tuple[str, str, str]],
            array: bool) -> dict[str, Any]:
    """A field holding a case's list (or object) of items; each sub-field reads one key.

    The parent carries the source too: mlcroissant reads the JSON column from it."""
    path = f"$[*].{key}"
    out: dict[str, Any] = {"@type": "cr:Field", "@id": f"cases/{name}", "name": name,
                           "description": description}
    if array:
        out.update({"isArray": True, "arrayShape": "-1"})
    out["source"] = _json_source(path)
    out["subField"] = [
        {"@type": "cr:Field", "@id": f"cases/{name}/{sub}", "name": sub, "dataType": dtype,
         "source": _json_source(path, item)} for sub, item, dtype in subs]
    return out


def _cases() -> dict[str, Any]:
    fields = [_field("cases", n, _json_source(f"$[*].{n}"), description=d)
              for n, d in CASE_FIELDS]
    fields += [_nested(n, k, d, subs, array=True) for n, k, d, subs in NESTED_FIELDS]
    rubric_subs = [(n, path, "sc:Text") for n, path in RUBRIC_FIELDS]
    fields.append(_nested("rubrics", "rubric_0_to_3", "The 0-3 rubrics: Diagnosis and"
                          " Localisation (British spelling), with their reference answers.",
                          rubric_subs, array=False))
    return {"@type": "cr:RecordSet", "@id": "cases", "name": "cases",
            "description": "One record per released case (release.json).",
            "key": {"@id": "cases/case_id"}, "field": fields}


def _images() -> dict[str, Any]:
    def source(name: str) -> dict[str, Any]:
        return {"fileObject": {"@id": IMAGES_CSV}, "extract": {"column": name}}

    return {"@type": "cr:RecordSet", "@id": "images", "name": "images",
            "description": "One record per image file (images.csv).",
            "key": {"@id": "images/image_id"},
            "field": [_field("images", n, source(n)) for n in IMAGE_FIELDS]}


def _counts(counts: Mapping[str, int]) -> dict[str, Any]:
    return {"@type": "cr:RecordSet", "@id": COUNTS_RECORD_SET, "name": COUNTS_RECORD_SET,
            "description": "The release's counts, as stated in the benchmark card.",
            "key": {"@id": "counts/quantity"},
            "field": [_field("counts", "quantity", {}), _field("counts", "label", {}),
                      _field("counts", "count", {}, "sc:Integer")],
            "data": [{"counts/quantity": key, "counts/label": label,
                      "counts/count": int(counts[key])} for key, label in COUNT_LABELS.items()]}


def croissant_counts(doc: Any) -> dict[str, int]:
    """The inline counts of a croissant.json document, read back (for ``validate``)."""
    found: dict[str, int] = {}
    record_sets = doc.get("recordSet") if isinstance(doc, dict) else None
    for record_set in record_sets if isinstance(record_sets, list) else []:
        if isinstance(record_set, dict) and record_set.get("@id") == COUNTS_RECORD_SET:
            rows = record_set.get("data")
            for row in rows if isinstance(rows, list) else []:
                if not isinstance(row, dict):
                    continue
                key, value = row.get("counts/quantity"), row.get("counts/count")
                if isinstance(key, str) and type(value) is int:
                    found[key] = value
    return found


def croissant_history_head(doc: Any) -> str | None:
    """The history chain head a croissant.json document states (for ``validate``), or None."""
    value = doc.get(HISTORY_HEAD_KEY) if isinstance(doc, dict) else None
    return value if isinstance(value, str) else None
