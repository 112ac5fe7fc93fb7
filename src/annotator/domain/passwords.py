"""Password hashes for the team store's logins: salted scrypt (hashlib), never the password.

The stored form is ``scrypt$<n>$<r>$<p>$<salt hex>$<hash hex>``, so the parameters travel with
the hash and can be raised later without breaking old ones.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

_N, _R, _P, _LEN = 2**14, 8, 1, 32
MIN_LENGTH = 8


def hash_password(password: str) -> str:
    """A new salted scrypt hash of ``password`` (ValueError when it is too short)."""
    if len(password) < MIN_LENGTH:
        raise ValueError(f"a password needs at least {MIN_LENGTH} characters")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=_LEN)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches ``stored`` (constant-time compare)."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        expected = bytes.fromhex(digest)
        found = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n),
                               r=int(r), p=int(p), dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(found, expected)
