"""`python -m clauseguard` runs the CLI."""

import sys

from clauseguard.interfaces.cli import main

sys.exit(main())
