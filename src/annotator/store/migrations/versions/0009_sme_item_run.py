"""SME items carry the run of a repeated system output (worst-of-K, seed 002 section 3)"""

from __future__ import annotations

from annotator.store.migrations._ops import column_added

revision = "0009_sme_item_run"
down_revision = "0008_history_chain"

upgrade, downgrade = column_added("sme_items", "run int?")
