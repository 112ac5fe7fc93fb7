"""The desk page's widgets: figure cards, progress rows, the annotator table, the conflicts
with their jump buttons, the submissions chart and the Actions area (see gui/pages/desk.py)."""
