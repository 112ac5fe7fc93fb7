"""The offline round trip in the app: open a work bundle, send my work, the curator's view."""
