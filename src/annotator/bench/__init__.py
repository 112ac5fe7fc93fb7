"""Performance: a synthetic project of any size and the measurements of issue 14."""
