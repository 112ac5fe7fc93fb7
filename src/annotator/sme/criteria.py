"""Splitting the criteria text into the clauses a verdict names.

Seed 001 writes inclusion criteria as "Apply when TRIGGER. Flag if A, B, or C." and
exclusion criteria as "Do not apply when X or Y. Also exclude Z." A verdict names the
exclusion clause that applies and the "Flag if" condition that failed, so both are split
into short choices here, once, for the page, the command line and the conflict view.
"""

from __future__ import annotations

import re

OTHER = "other"
_SENTENCE = re.compile(r"(?<=[.;])\s+")
_FLAG = re.compile(r"\bFlag if\b", re.IGNORECASE)
_TOP_COMMA = re.compile(r",\s*(?:or\s+)?(?![^(]*\))", re.IGNORECASE)
_TOP_OR = re.compile(r"\s+or\s+(?![^(]*\))", re.IGNORECASE)
MIN_WORDS = 3  # "complex or double-negative phrasing" is one noun phrase, not two clauses
_EXCLUSION_LEADS = re.compile(
    r"^(do not apply (?:when|for|if|to)|do not use for|also exclude)\s+", re.IGNORECASE
)


def normalise(text: str) -> str:
    return " ".join(text.split())


def flag_clause(inclusion: str) -> str | None:
    """The "Flag if ..." part of the inclusion criteria, None when there is none."""
    text = normalise(inclusion)
    match = _FLAG.search(text)
    if match is None:
        return None
    rest = text[match.end() :].strip()
    return rest.rstrip(".").strip() or None


def apply_clause(inclusion: str) -> str:
    """The "Apply when ..." trigger (everything before "Flag if")."""
    text = normalise(inclusion)
    match = _FLAG.search(text)
    return (text[: match.start()] if match else text).strip()


def flag_choices(inclusion: str) -> list[str]:
    """The failure conditions split on "or", plus ``other``; [] when no "Flag if" clause."""
    clause = flag_clause(inclusion)
    if clause is None:
        return []
    return alternatives(clause) + [OTHER]


def alternatives(clause: str) -> list[str]:
    """A clause split into its alternatives (seed 001 rule 3: "or" is an implicit OR).

    A series ("A, B, or C") splits at its commas; otherwise "A or B" splits at "or" only
    when both sides are clauses of a few words. Parenthesised text is never split.
    """
    text = clause.strip(" ,.")
    if _TOP_COMMA.search(text):
        parts = _TOP_COMMA.split(text)
    else:
        parts = _TOP_OR.split(text)
        if any(len(p.split()) < MIN_WORDS for p in parts):
            parts = [text]
    return [p.strip(" ,.") for p in parts if p.strip(" ,.")]


def exclusion_choices(exclusion: str) -> list[str]:
    """The exclusion clauses: one per sentence and per "or" alternative, lead words removed."""
    out: list[str] = []
    for sentence in _SENTENCE.split(normalise(exclusion)):
        body = _EXCLUSION_LEADS.sub("", sentence.strip()).rstrip(".").strip()
        out += alternatives(body)
    return out
