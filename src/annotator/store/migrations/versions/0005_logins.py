"""Logins for the team store: a salted scrypt password hash per user (nullable)."""

from __future__ import annotations

from annotator.store.migrations._ops import column_added

revision = "0005_logins"
down_revision = "0004_judge"

upgrade, downgrade = column_added("users", "password_hash s300?")
