"""Burned-in text detection: the full matrix of issue 24, and the detector's speed.

Reports, per kind of image, font size and polarity, how many planted strings the detector
flags (a found box on the string's frame overlapping it) and how many it covers whole (what
``redact --accept-suggested`` would black out); the false positives on the same images drawn
without text and on the demo's images; and the median cost of the prefilter per textless
frame and of OCR per candidate frame.

    .venv/bin/python benchmarks/bench_burned_text.py [--images 160] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict

from annotator.bench.text_images import text_image
from annotator.imaging.burned_text import (
    candidate_lines,
    displayed_frames,
    find_text_in_image,
    ocr_lines,
)
from annotator.resources import demo_cases_dir


def overlaps(a: tuple[int, int, int, int], b: list[int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def covers(a: tuple[int, int, int, int], boxes: list[list[int]]) -> bool:
    """Whether the union of ``boxes`` covers every pixel of ``a``."""
    x, y, w, h = a
    covered = [[False] * w for _ in range(h)]
    for bx, by, bw, bh in boxes:
        for row in range(max(y, by), min(y + h, by + bh)):
            for col in range(max(x, bx), min(x + w, bx + bw)):
                covered[row - y][col - x] = True
    return all(all(r) for r in covered)


def run(images: int) -> dict[str, object]:
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # planted, flagged, covered
    for index in range(images):
        image = text_image(index)
        found = find_text_in_image(image.data, name=image.name)
        kind = image.name.split("-", 1)[1]
        for planted in image.planted:
            boxes = [t.box.as_list() for t in found if t.frame == planted.frame]
            row = rows[kind]
            row[0] += 1
            read = [t.box.as_list() for t in found if t.frame == planted.frame and t.read]
            row[1] += any(overlaps(planted.box, b) for b in read)
            row[2] += covers(planted.box, boxes)
    planted = sum(r[0] for r in rows.values())
    flagged = sum(r[1] for r in rows.values())
    covered = sum(r[2] for r in rows.values())
    textless = [text_image(i, with_text=False) for i in range(images)]
    demo = sorted(p for p in (demo_cases_dir() / "images").rglob("*") if p.is_file())
    false_bench = sum(bool(find_text_in_image(t.data)) for t in textless)
    false_demo = [p.name for p in demo if find_text_in_image(p.read_bytes(), name=p.name)]
    prefilter, ocr = [], []
    for image in textless[:40] + [text_image(i) for i in range(40)]:
        for frame, grey in displayed_frames(image.data):
            start = time.perf_counter()
            boxes = candidate_lines(grey)
            prefilter.append(time.perf_counter() - start)
            if boxes:
                start = time.perf_counter()
                ocr_lines(grey, boxes, frame)
                ocr.append(time.perf_counter() - start)
    return {
        "planted": planted, "flagged": flagged, "covered": covered,
        "flagged_rate": flagged / planted, "covered_rate": covered / planted,
        "textless_bench": len(textless), "false_positive_bench": false_bench,
        "demo_images": len(demo), "false_positive_demo": false_demo,
        "prefilter_median_ms": 1000 * statistics.median(prefilter),
        "ocr_median_ms_per_candidate_frame": 1000 * statistics.median(ocr) if ocr else None,
        "matrix": {k: {"planted": v[0], "flagged": v[1], "covered": v[2]}
                   for k, v in sorted(rows.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=160)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.images)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for kind, row in result["matrix"].items():  # type: ignore[union-attr]
        print(f"{kind:32} {row['flagged']:3}/{row['planted']:3} flagged,"
              f" {row['covered']:3} covered")
    for key, value in result.items():
        if key != "matrix":
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
