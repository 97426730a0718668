"""``python -m parprim``: the parprim command (parprim.cli)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
