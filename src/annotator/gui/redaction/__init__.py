"""The redaction page's parts: the box canvas and the page's keys."""
