"""On PostgreSQL the agreement statistics are stored uncompressed (migration 0031).

The sum row holds every rater pair's tables and is written after each submission; compressing
it on every write cost 5 ms of the point estimates at the bench's 100,000 cases.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from annotator.store.project import open_project

pytestmark = pytest.mark.postgres


def _storage(project) -> str:  # type: ignore[no-untyped-def]
    with project.engine.connect() as conn:
        return str(conn.execute(text(
            "SELECT attstorage FROM pg_attribute"
            " WHERE attrelid = 'agreement_stats'::regclass AND attname = 'stats'")).scalar_one())


def test_the_agreement_statistics_are_stored_uncompressed(pg_url: str) -> None:
    project = open_project(pg_url, create=True)
    assert _storage(project) == "e"  # external: out of line, never compressed
