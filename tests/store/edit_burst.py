"""A writer process for the kill test: sets labels through the service layer forever.

Usage: ``python edit_burst.py LOCATION USER CASE``. After each committed edit it prints
``ack KEY VALUE`` and flushes; the test kills it with SIGKILL at an arbitrary moment.
"""

from __future__ import annotations

import itertools
import sys

from annotator.services import annotating
from annotator.store.project import open_project


def main(location: str, user: str, case_id: str) -> None:
    project = open_project(location, create=False, backup=False)
    for n in itertools.count():
        text = f"edit {n}"
        annotating.set_label(project, user, case_id, "comment", "", text)  # one transaction
        print("ack", text, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
