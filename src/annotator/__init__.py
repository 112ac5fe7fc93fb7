"""annotator: physicians annotate benchmark cases, seniors adjudicate, curators release.

The package is layered: everything below :mod:`annotator.gui` is Qt-free (domain models,
storage, import, imaging, statistics, review, export, command line).
"""

from __future__ import annotations

__version__ = "0.1.0"
