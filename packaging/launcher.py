"""Entry point of the PyInstaller build: the same `annotator` command as the wheel's."""

import sys

from annotator.cli import main

if __name__ == "__main__":
    sys.exit(main())
