"""What the annotate page's start imports: the heavy modules it never uses stay out (the first
case waited ~0.6 s for scipy, pydantic, the judge and SME kinds and their statistics)."""

from __future__ import annotations

import subprocess
import sys

NOT_AT_START = ("scipy", "pydantic", "annotator.services.kinds", "annotator.agreement",
                "annotator.services.pixel_review", "annotator.services.sync.package", "pandas")


def test_the_annotate_page_imports_no_heavy_module_it_does_not_use() -> None:
    code = ("import sys; import annotator.gui.main_window, annotator.gui.pages.annotate,"
            " annotator.gui.workspace.page; print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    loaded = set(done.stdout.split())
    assert "annotator.gui.workspace.page" in loaded
    assert not [m for m in NOT_AT_START if m in loaded]
