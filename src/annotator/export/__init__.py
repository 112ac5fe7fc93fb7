"""Release export: the green-lit cases in the scoring core's schema, with their files.

``release_input`` is what a release is made of (:mod:`annotator.services.release` reads it
from a project), ``writer`` writes the folder (images,
images.csv, ATTRIBUTION.tsv, card, croissant.json, agreement report, diff, manifest) after
the ``privacy`` gate, and ``validate`` checks a folder against the ``model`` and its
manifest. The use cases are in :mod:`annotator.services.export`; see
docs/release-format.md.
"""
