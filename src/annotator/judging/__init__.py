"""Human reference scoring of the scoring core's judges (the DDx-TRACE paper's Table 9).

Qt-free: the run-file models, the rubric texts, the human reference and the agreement figures.
"""
