"""The Quality view: each rater's calibration agreement, intra-rater reliability, gold
accuracy, time on task, drift and latent-class estimates (issue 26)."""
