"""annotator: physicians annotate benchmark cases, seniors adjudicate, curators release.

The package is layered (docs/architecture.md; checked by the import-linter contract in
pyproject.toml): everything but :mod:`annotator.gui` is Qt-free (domain models, storage,
import, imaging, statistics, review, export, services, command line).
"""

from __future__ import annotations

__version__ = "0.1.0"
