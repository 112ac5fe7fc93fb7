"""The annotation workspace: the page physicians live in, and its widgets."""
