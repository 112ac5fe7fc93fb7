"""The peak resident memory of a bench child process."""

from __future__ import annotations

import resource


def peak_rss_mb() -> float:
    """This process's peak resident set in MB: Linux's ``VmHWM``, since getrusage's
    ``ru_maxrss`` keeps the parent's size across fork and exec (a child started by a
    ``bench-scale`` that had just built a 100,000-case store reported the parent's 412 MB
    before reading anything). Elsewhere ``ru_maxrss`` (kilobytes on Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
