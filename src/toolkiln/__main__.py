"""`python -m toolkiln`: the command line."""

import sys

from toolkiln.cli import main

sys.exit(main())
