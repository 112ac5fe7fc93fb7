"""The meta-review use cases, layered inside the package.

``base`` (a case's submissions, decisions, final values and green-light blockers) is what
every other module builds on; ``detect`` records conflicts and reviewer letters;
``caseflow`` moves case states; ``decisions`` decides, green-lights and excludes; ``queue``,
``view`` and ``feedback`` read; ``actions`` (bulk, split, demo) and ``reopen`` act on top.
No module imports one listed after it.
"""
