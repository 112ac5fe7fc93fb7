"""The meta-review use cases, layered inside the package.

``base`` (a case's submissions, decisions, final values and green-light blockers) is what
every other module builds on; ``detect`` records conflicts and reviewer letters;
``caseflow`` moves case states; ``decisions`` decides, green-lights and excludes; ``queue``,
``view`` and ``feedback`` read; ``actions`` (bulk, split, demo) and ``reopen`` act on top.
No module imports one listed after it.
"""

# The queue registers the computer of its keys with the store (``store.queue_keys``): every
# process that uses the review services keeps the keys in its own writes.
from annotator.services.review import queue as _queue  # noqa: E402,F401
