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


# A well-formed hash of no one's password (random salt and digest, fixed here): checking a
# password against it costs one scrypt like a real check, so an unknown user or one without a
# password answers in the same time as a wrong password.
_DUMMY = (f"scrypt${_N}${_R}${_P}$8d0f4b6a2c7e9135f0a1b2c3d4e5f607"
          "$3f6c1e8a9b2d4f7061c5e3a8b9d0f1e2a3b4c5d6e7f8091a2b3c4d5e6f708192")


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches ``stored`` (constant-time compare).

    ``stored`` None (no such user, or no password yet) does the same scrypt work against a
    dummy hash and answers False, so the time taken does not tell which case it was.
    """
    if stored is None:
        _matches(password, _DUMMY)
        return False
    return _matches(password, stored)


def _matches(password: str, stored: str) -> bool:
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
