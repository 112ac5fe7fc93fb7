"""Widgets of the SME review page (``annotator.gui.pages.sme``)."""
