"""The round trip's actions with their default shortcuts (data, not code).

They are window actions (they work on every page); each is enabled only where it makes
sense: "Send my work" in an annotator's offline project, the curator's actions in the
curator's project for a curator. Opening a work bundle works everywhere.
"""

from __future__ import annotations

from annotator.gui.actions import ActionSpec

GROUP = "Round trip"
OPEN_BUNDLE = "roundtrip.open_bundle"
SEND_WORK = "roundtrip.send_work"
SHOW_VIEW = "roundtrip.view"
MAKE_BUNDLE = "roundtrip.make_bundle"
IMPORT_PACKAGES = "roundtrip.import_packages"

ROUNDTRIP_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(OPEN_BUNDLE, "Open work bundle...", "Ctrl+O", GROUP),
    ActionSpec(SEND_WORK, "Send my work...", "Ctrl+Shift+S", GROUP),
    ActionSpec(SHOW_VIEW, "Round trip (curator)", "Ctrl+Shift+T", GROUP),
    ActionSpec(MAKE_BUNDLE, "Make bundle for...", "Ctrl+Shift+B", GROUP),
    ActionSpec(IMPORT_PACKAGES, "Import packages...", "Ctrl+Shift+I", GROUP),
)
