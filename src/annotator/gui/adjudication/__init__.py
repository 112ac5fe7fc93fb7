"""Widgets of the meta-review page (``annotator.gui.pages.review``)."""
