"""SME review: benchmark specifications, review items, verdicts and their results (Qt-free)."""
