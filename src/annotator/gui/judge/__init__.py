"""Widgets of the Judge scoring page (scoring form, case text, agreement table)."""
