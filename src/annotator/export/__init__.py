"""Release export: the green-lit cases in the scoring core's schema, with their files.

``collect`` reads a project into a release input, ``writer`` writes the folder (images,
images.csv, ATTRIBUTION.tsv, card, croissant.json, agreement report, diff, manifest) after
the ``privacy`` gate, and ``validate`` checks a folder against the ``model`` and its
manifest. The use cases are in :mod:`annotator.services.export`; see
docs/release-format.md.
"""
