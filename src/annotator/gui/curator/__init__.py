"""The curator's actions from the app: one dialog per command, on the command line's services."""
