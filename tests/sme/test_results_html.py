"""The sme-results HTML reads like the app's results tab: the same rows (rubric, then its
benchmarks), rounded numbers, labelled tables, no raw JSON, and a page that fits 1280 px."""

from __future__ import annotations

import html
import re

import pytest

from annotator.services.demo import CURATOR, PHYSICIANS, SEED, SENIOR
from annotator.services.sme.demo import demo_sme_review
from annotator.services.sme.results import results
from annotator.services.users import add_user
from annotator.sme.report import html_page
from annotator.sme.results_view import COLUMNS, table_rows
from annotator.store.project import open_project


@pytest.fixture(scope="module")
def page_and_results(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    project = open_project(str(tmp_path_factory.mktemp("sme") / "p"))
    try:
        add_user(project, "(setup)", CURATOR, ["curator"])
        for name in PHYSICIANS:
            add_user(project, CURATOR, name, ["annotator"])
        add_user(project, CURATOR, SENIOR, ["adjudicator"])
        demo_sme_review(project, CURATOR, SENIOR, PHYSICIANS, SEED)
        found = results(project, SENIOR)
    finally:
        project.close()
    return html_page(found), found


def _text(page: str) -> str:
    """What a reader sees: tags, styles and the plot's drawing left out."""
    page = re.sub(r"<svg.*?</svg>|<style>.*?</style>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_the_page_shows_the_results_tab_rows(page_and_results) -> None:  # type: ignore[no-untyped-def]
    page, found = page_and_results
    text = " ".join(_text(page).split())
    for column in COLUMNS:
        assert html.escape(column) in page, column
    for _rubric, cells, _flagged in table_rows(found):
        for cell in cells:
            assert " ".join(cell.split()) in text, cell
    assert "A-NEG (weighted)" in text and "S-HND (weighted)" in text


def test_numbers_are_rounded_and_nothing_is_raw_json(page_and_results) -> None:  # type: ignore[no-untyped-def]
    page, _ = page_and_results
    text = _text(page)
    assert not re.search(r"\d\.\d{3,}", text), re.search(r".{30}\d\.\d{3,}.{10}", text)
    assert "{" not in text and '"' not in text and "null" not in text
    assert "n_resamples" not in text and "min_items_for_ci" not in text  # labelled instead
    assert "1,000 bootstrap resamples" in text


def test_every_table_is_labelled_and_the_page_fits_1280_px(page_and_results) -> None:  # type: ignore[no-untyped-def]
    page, _ = page_and_results
    tables = re.findall(r"<table.*?</table>", page, flags=re.S)
    assert len(tables) >= 3
    for table in tables:
        assert "<caption>" in table and "<th" in table
    widths = [int(w) for w in re.findall(r'<svg[^>]*\bwidth="(\d+)"', page)]
    assert widths and max(widths) <= 1280
    assert re.search(r"max-width:\s*1280px", page)
    assert "<meta name='viewport'" in page
