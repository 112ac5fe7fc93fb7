"""Packages are signed: only the laptop that unbundled an annotator's bundle can write theirs.

Each bundle carries a fresh random secret (32 bytes). The annotator's offline project keeps
it; the curator's project keeps only the signing key derived from it (a SHA-256 of the
secret), under the bundle's id with the annotator it was made for. A package is signed with
HMAC-SHA256 under that key over the canonical JSON of its manifest (which lists the SHA-256
of every member), so the signature vouches for the whole file. Knowing the project id and a
name is no longer enough to write someone's labels.

What it does not protect against (docs/security.md): someone holding the annotator's laptop
or the bundle file, or someone who can read the curator's database (who could write to it
directly anyway).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy.orm import Session

from annotator.store.settings import BUNDLE_KEY, get_setting, put_setting
from annotator.sync.container import canonical_json

_KEY_CONTEXT = b"annotator package signing key v1\x00"


def new_secret() -> str:
    """A fresh bundle secret, hex."""
    return secrets.token_hex(32)


def signing_key(secret_hex: str) -> bytes:
    """The key packages are signed with: a hash of the secret, so the secret is not stored."""
    return hashlib.sha256(_KEY_CONTEXT + bytes.fromhex(secret_hex)).digest()


def signed_body(manifest: Mapping[str, Any]) -> bytes:
    """What the signature covers: the manifest without its checksum and signature."""
    return canonical_json({k: v for k, v in manifest.items() if k not in ("checksum",
                                                                           "signature")})


def sign(key: bytes, manifest: Mapping[str, Any]) -> str:
    return hmac.new(key, signed_body(manifest), hashlib.sha256).hexdigest()


def verify(key: bytes, manifest: Mapping[str, Any], signature: str | None) -> bool:
    if not signature:
        return False
    return hmac.compare_digest(sign(key, manifest), signature)


def remember_bundle_key(
    session: Session, bundle_id: uuid.UUID, annotator_id: uuid.UUID, secret_hex: str
) -> None:
    """At the curator: keep the derived key of a new bundle (never the secret itself)."""
    put_setting(session, BUNDLE_KEY, {
        "annotator_id": str(annotator_id), "key": signing_key(secret_hex).hex(),
    }, str(bundle_id))


def bundle_key(session: Session, bundle_id: uuid.UUID, annotator_id: uuid.UUID) -> bytes | None:
    """The key for packages from ``bundle_id``, if that bundle was made for ``annotator_id``."""
    stored = get_setting(session, BUNDLE_KEY, str(bundle_id))
    if not isinstance(stored, dict) or stored.get("annotator_id") != str(annotator_id):
        return None
    try:
        return bytes.fromhex(str(stored.get("key")))
    except ValueError:
        return None
