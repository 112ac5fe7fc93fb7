"""One module per page of the main window."""
